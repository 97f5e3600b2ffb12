/* msamp-dump's listing format (tests/vectors/README.md): one line per frame, record or event. */
#include "msamp_decode.h"

#include <inttypes.h>
#include <string.h>

const char *msamp_arch_name(unsigned arch)
{
    switch (arch) {
    case MSAMP_ARCH_X86_64: return "x86_64";
    case MSAMP_ARCH_AARCH64: return "aarch64";
    case MSAMP_ARCH_ARM: return "arm";
    case MSAMP_ARCH_ARM_THUMB: return "thumb";
    case MSAMP_ARCH_MIPS64: return "mips64";
    case MSAMP_ARCH_RISCV64: return "riscv64";
    case MSAMP_ARCH_RISCV32: return "riscv32";
    case MSAMP_ARCH_X86: return "x86";
    default: return "unknown";
    }
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

static void print_addr(FILE *out, int has, uint64_t addr)
{
    if (has)
        fprintf(out, " addr=0x%" PRIx64, addr);
}

static void print_session(FILE *out, const struct msamp_record *rec)
{
    unsigned arch = rec->u.session.arch;
    fprintf(out, "SESSION version=%u flags=0x%02x session_id=0x%08" PRIx32 " resend_seq=%" PRIu64,
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

static void print_body(FILE *out, const struct msamp_record *rec)
{
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
    case MSAMP_REC_SESSION:
        print_session(out, rec);
        break;
    case MSAMP_REC_STACK:
        fprintf(out, "STACK id=%" PRIu64 " depth=%" PRIu32 " frames=", rec->u.stack.id,
                rec->u.stack.depth);
        for (uint32_t i = 0; i < rec->u.stack.depth; i++)
            fprintf(out, "%s0x%" PRIx64, i ? "," : "", rec->u.stack.frames[i]);
        break;
    case MSAMP_REC_ALLOC:
        fprintf(out, "ALLOC slot1=%" PRIu64 " size=%" PRIu64 " stack=%" PRIu64 " dt=%" PRIu64,
                rec->u.alloc.slot1, rec->u.alloc.size, rec->u.alloc.stack_id, rec->dt);
        print_addr(out, rec->u.alloc.has_addr, rec->u.alloc.addr);
        break;
    case MSAMP_REC_FREE:
        fprintf(out, "FREE slot=%" PRIu64 " dt=%" PRIu64 "%s", rec->u.free.slot, rec->dt,
                rec->u.free.moved ? " moved=1" : "");
        break;
    case MSAMP_REC_LIVE:
        fprintf(out, "LIVE slot=%" PRIu64 " size=%" PRIu64 " stack=%" PRIu64 " birth=%" PRIu64,
                rec->u.live.slot, rec->u.live.size, rec->u.live.stack_id, rec->u.live.birth);
        print_addr(out, rec->u.live.has_addr, rec->u.live.addr);
        if (rec->u.live.has_interval)
            fprintf(out, " interval=%" PRIu64, rec->u.live.interval);
        break;
    case MSAMP_REC_SNAP_BEGIN:
        fprintf(out, "SNAP_BEGIN pass=%" PRIu64 " ts=%" PRIu64, rec->u.snap_begin.pass, rec->ts);
        break;
    case MSAMP_REC_SNAP_END:
        fprintf(out, "SNAP_END pass=%" PRIu64 " count=%" PRIu64, rec->u.snap_end.pass,
                rec->u.snap_end.count);
        break;
    case MSAMP_REC_DROPS:
        fprintf(out,
                "DROPS ring_records=%" PRIu64 " ring_bytes=%" PRIu64 " live_full=%" PRIu64
                " stack_full=%" PRIu64 " reentrant=%" PRIu64 " truncated=%" PRIu64,
                rec->u.drops.ring_records, rec->u.drops.ring_bytes, rec->u.drops.live_full,
                rec->u.drops.stack_full, rec->u.drops.reentrant, rec->u.drops.truncated);
        if (rec->u.drops.has_no_frame)
            fprintf(out, " no_frame=%" PRIu64, rec->u.drops.no_frame);
        break;
    case MSAMP_REC_FAIL:
        fprintf(out,
                "FAIL kind=%" PRIu64 " size=%" PRIu64 " stack=%" PRIu64 " dt=%" PRIu64
                " count=%" PRIu64,
                rec->u.fail.kind, rec->u.fail.size, rec->u.fail.stack_id, rec->dt,
                rec->u.fail.count);
        break;
    case MSAMP_REC_INTERVAL:
        fprintf(out, "INTERVAL interval=%" PRIu64 " dt=%" PRIu64, rec->u.interval.interval,
                rec->dt);
        if (rec->u.interval.has_reason)
            fprintf(out, " reason=%" PRIu64 " epoch=%" PRIu64, rec->u.interval.reason,
                    rec->u.interval.epoch);
        break;
    case MSAMP_REC_TIME:
        fprintf(out, "TIME ts=%" PRIu64, rec->ts);
        break;
    case MSAMP_REC_REALLOC:
        fprintf(out,
                "REALLOC old_slot=%" PRIu64 " new_slot1=%" PRIu64 " size=%" PRIu64
                " stack=%" PRIu64 " dt=%" PRIu64,
                rec->u.realloc.old_slot, rec->u.realloc.new_slot1, rec->u.realloc.size,
                rec->u.realloc.stack_id, rec->dt);
        print_addr(out, rec->u.realloc.has_addr, rec->u.realloc.addr);
        break;
    case MSAMP_REC_MARK:
        fputs("MARK text=", out);
        print_quoted(out, rec->u.mark.text, rec->u.mark.len);
        break;
    case MSAMP_REC_MAPPING:
        fprintf(out,
                "MAPPING start=0x%" PRIx64 " limit=0x%" PRIx64 " offset=0x%" PRIx64
                " build_id=",
                rec->u.mapping.start, rec->u.mapping.limit, rec->u.mapping.offset);
        print_hexbytes(out, rec->u.mapping.build_id, rec->u.mapping.build_id_len);
        fputs(" path=", out);
        print_quoted(out, rec->u.mapping.path, rec->u.mapping.path_len);
        break;
    case MSAMP_REC_TASK:
        fprintf(out, "TASK task=%" PRIu64 " name=", rec->u.task.task);
        print_quoted(out, rec->u.task.name, rec->u.task.len);
        break;
    case MSAMP_REC_SAMPLE_TASK:
        fprintf(out, "SAMPLE_TASK task=%" PRIu64, rec->u.task.task);
        break;
    case MSAMP_REC_CMD_ACK:
        fprintf(out, "CMD_ACK seq=%" PRIu64 " cmd=%" PRIu64 " status=%" PRIu64,
                rec->u.cmd_ack.seq, rec->u.cmd_ack.cmd, rec->u.cmd_ack.status);
        break;
    default:
        fprintf(out, "# event %d", rec->type);
        break;
    }
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
