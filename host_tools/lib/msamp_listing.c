/* msamp-dump's listing format (tests/vectors/README.md): one line per frame, record or event. */
#include "msamp_arch.h"
#include "msamp_decode.h"

#include <inttypes.h>
#include <string.h>

const char *msamp_arch_name(unsigned arch)
{
    return msamp_arch_get(arch)->name;
}

static void print_hexbytes(FILE *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
}

static void print_quoted(FILE *out, const uint8_t *p, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x20 || p[i] > 0x7e || p[i] == '"' || p[i] == '\\')
            fprintf(out, "\\x%02x", p[i]);
        else
            fputc(p[i], out);
    }
    fputc('"', out);
}

static void print_session(FILE *out, const struct msamp_record *rec)
{
    unsigned arch = rec->u.session.arch;
    fprintf(out, " version=%u flags=0x%02x session_id=0x%08" PRIx32 " resend_seq=%" PRIu64,
            rec->u.session.version, rec->u.session.flags, rec->u.session.session_id,
            rec->u.session.resend_seq);
    if (arch == MSAMP_ARCH_UNKNOWN || strcmp(msamp_arch_name(arch), "unknown") != 0)
        fprintf(out, " arch=%s", msamp_arch_name(arch));
    else
        fprintf(out, " arch=%u", arch);
    fprintf(out,
            " ptr_size=%u tick_hz=%" PRIu64 " interval=%" PRIu64 " live_capacity=%" PRIu64
            " stack_capacity=%" PRIu64 " max_depth=%" PRIu64 " build_id=",
            rec->u.session.ptr_size, rec->u.session.tick_hz, rec->u.session.interval,
            rec->u.session.live_capacity, rec->u.session.stack_capacity,
            rec->u.session.max_depth);
    print_hexbytes(out, rec->u.session.build_id, rec->u.session.build_id_len);
    if (rec->u.session.device_id_len) {
        /* Printable ASCII as it is, any other byte as \xHH. */
        fputs(" device_id=\"", out);
        for (unsigned i = 0; i < rec->u.session.device_id_len; i++) {
            uint8_t c = rec->u.session.device_id[i];
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
                fputc(c, out);
            else
                fprintf(out, "\\x%02x", c);
        }
        fputc('"', out);
    }
}

static void print_stack(FILE *out, const struct msamp_record *rec)
{
    fprintf(out, " id=%" PRIu64 " depth=%" PRIu32 " frames=", rec->u.stack.id, rec->u.stack.depth);
    for (uint32_t i = 0; i < rec->u.stack.depth; i++)
        fprintf(out, "%s0x%" PRIx64, i ? "," : "", rec->u.stack.frames[i]);
}

static void print_mark(FILE *out, const struct msamp_record *rec)
{
    fputs(" text=", out);
    print_quoted(out, rec->u.mark.text, rec->u.mark.len);
}

static void print_mapping(FILE *out, const struct msamp_record *rec)
{
    fprintf(out, " start=0x%" PRIx64 " limit=0x%" PRIx64 " offset=0x%" PRIx64 " build_id=",
            rec->u.mapping.start, rec->u.mapping.limit, rec->u.mapping.offset);
    print_hexbytes(out, rec->u.mapping.build_id, rec->u.mapping.build_id_len);
    fputs(" path=", out);
    print_quoted(out, rec->u.mapping.path, rec->u.mapping.path_len);
}

static void print_task(FILE *out, const struct msamp_record *rec)
{
    fprintf(out, " task=%" PRIu64 " name=", rec->u.task.task);
    print_quoted(out, rec->u.task.name, rec->u.task.len);
}

/* One statement per field KIND of the varint records (include/msamp_wire.h): " label=value",
 * optional fields when present. `on`: the latest optional field was (a WITH field comes with
 * it). */
#define PR_U64(label, v) fprintf(out, " " #label "=%" PRIu64, v);
#define PR_REQ(m, field, label) PR_U64(label, rec->u.m.field)
#define PR_ID16(m, field, label) PR_U64(label, rec->u.m.field)
#define PR_DT(m, field, label) PR_U64(label, rec->dt)
#define PR_TS(m, field, label) PR_U64(label, rec->ts)
#define PR_ADDR(m, field, label)                                      \
    on = rec->u.m.has_##field;                                        \
    if (on)                                                           \
        fprintf(out, " " #label "=0x%" PRIx64, rec->u.m.field);
#define PR_OPT(m, field, label)                                       \
    on = rec->u.m.has_##field;                                        \
    if (on)                                                           \
        PR_U64(label, rec->u.m.field)
#define PR_FLAG(m, field, label)                                      \
    if (rec->u.m.field)                                               \
        fputs(" " #label "=1", out);
#define PR_WITH(m, field, label)                                      \
    if (on)                                                           \
        PR_U64(label, rec->u.m.field)
#define PR_FIELD(m, kind, field, label) PR_##kind(m, field, label)
#define PR_VARINT(NAME, number, m)                                      \
    case MSAMP_REC_##NAME:                                            \
        fputs(#NAME, out);                                            \
        MSAMP_WIRE_FIELDS_##NAME(PR_FIELD, m)                         \
        break;
/* A record of a free-form layout has its printer, print_<member>. */
#define PR_FREEFORM(NAME, number, m)                                    \
    case MSAMP_REC_##NAME:                                            \
        fputs(#NAME, out);                                            \
        print_##m(out, rec);                                          \
        break;

static void print_body(FILE *out, const struct msamp_record *rec)
{
    int on = 0;
    switch (rec->type) {
    case MSAMP_DEC_FRAME:
        if (rec->u.frame.lost)
            fprintf(out, "# lost frames=%" PRIu32 "\n", rec->u.frame.lost);
        fprintf(out, "frame seq=%u", rec->u.frame.seq);
        break;
    case MSAMP_DEC_LOSS:
        fprintf(out, "# loss bytes=%" PRIu64, rec->u.loss.bytes);
        break;
    case MSAMP_DEC_UNKNOWN:
        fprintf(out, "UNKNOWN type=%" PRIu64 " len=%zu", rec->u.unknown.type, rec->u.unknown.len);
        break;
        MSAMP_WIRE_RECORDS(PR_FREEFORM, PR_VARINT)
    default:
        fprintf(out, "# event %d", rec->type);
        break;
    }
    (void)on;
}

void msamp_record_print_opt(FILE *out, const struct msamp_record *rec, unsigned opts)
{
    print_body(out, rec);
    if ((opts & MSAMP_PRINT_TIME) && rec->type != MSAMP_DEC_FRAME && rec->type != MSAMP_DEC_LOSS) {
        if (rec->ts_valid)
            fprintf(out, " @ts=%" PRIu64, rec->ts);
        else
            fputs(" @ts=?", out);
    }
    fputc('\n', out);
}

void msamp_record_print(FILE *out, const struct msamp_record *rec)
{
    msamp_record_print_opt(out, rec, 0);
}

void msamp_dec_stats_print(FILE *out, const char *prefix, const struct msamp_dec_stats *st)
{
    fprintf(out, "%sbytes_in=%" PRIu64 "\n", prefix, st->bytes_in);
    fprintf(out, "%sframes_ok=%" PRIu64 "\n", prefix, st->frames_ok);
    fprintf(out, "%sframes_bad=%" PRIu64 "\n", prefix, st->frames_bad);
    fprintf(out, "%sframes_lost=%" PRIu64 "\n", prefix, st->frames_lost);
    fprintf(out, "%sframes_repeated=%" PRIu64 "\n", prefix, st->frames_repeated);
    fprintf(out, "%sbytes_discarded=%" PRIu64 "\n", prefix, st->bytes_discarded);
    fprintf(out, "%srecords=%" PRIu64 "\n", prefix, st->records);
    fprintf(out, "%srecords_malformed=%" PRIu64 "\n", prefix, st->records_malformed);
    fprintf(out, "%srecords_unknown=%" PRIu64 "\n", prefix, st->records_unknown);
}
