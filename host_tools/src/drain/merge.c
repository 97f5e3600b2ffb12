#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_file.h"
#include "prof_model.h"
#include "profile.h"

static int64_t tr_str(struct prof *dst, const struct prof *src, int64_t i)
{
    return prof_str(dst, src->str[i], src->strlen[i]);
}

static int same_types(const struct prof *a, const struct prof *b)
{
    if (a->nvt != b->nvt)
        return 0;
    for (size_t i = 0; i < a->nvt; i++) {
        if (strcmp(a->str[a->vt[i].type], b->str[b->vt[i].type]) != 0 ||
            strcmp(a->str[a->vt[i].unit], b->str[b->vt[i].unit]) != 0)
            return 0;
    }
    return 1;
}

static uint64_t merge_mapping(struct prof *dst, const struct prof *src, uint64_t id)
{
    struct prof_mapping m = src->mapping[id - 1];
    m.filename = tr_str(dst, src, m.filename);
    m.build_id = tr_str(dst, src, m.build_id);
    for (size_t i = 0; i < dst->nmapping; i++) {
        const struct prof_mapping *o = &dst->mapping[i];
        if (o->start == m.start && o->limit == m.limit && o->offset == m.offset &&
            o->filename == m.filename && o->build_id == m.build_id)
            return i + 1;
    }
    return prof_add_mapping(dst, &m);
}

static void merge_one(struct prof *dst, const struct prof *src)
{
    uint64_t *mapid = xcalloc(src->nmapping + 1, sizeof(uint64_t));
    uint64_t *funcid = xcalloc(src->nfunction + 1, sizeof(uint64_t));
    uint64_t *locid = xcalloc(src->nlocation + 1, sizeof(uint64_t));
    for (size_t i = 0; i < src->nmapping; i++)
        mapid[i + 1] = merge_mapping(dst, src, i + 1);
    for (size_t i = 0; i < src->nfunction; i++) {
        struct prof_function f = src->function[i];
        f.name = tr_str(dst, src, f.name);
        f.system_name = tr_str(dst, src, f.system_name);
        f.filename = tr_str(dst, src, f.filename);
        funcid[i + 1] = prof_add_function(dst, &f);
    }
    struct prof_line *lines = NULL;
    size_t caplines = 0;
    for (size_t i = 0; i < src->nlocation; i++) {
        const struct prof_location *l = &src->location[i];
        GROW(lines, caplines, l->nline + 1);
        for (uint32_t j = 0; j < l->nline; j++) {
            lines[j] = src->linepool[l->line_off + j];
            lines[j].function_id = funcid[lines[j].function_id];
        }
        locid[i + 1] =
            prof_add_location(dst, mapid[l->mapping_id], l->address, lines, l->nline, 1);
    }
    uint64_t *locs = NULL;
    size_t caplocs = 0;
    struct prof_label *labels = NULL;
    size_t caplabels = 0;
    for (size_t i = 0; i < src->nsample; i++) {
        const struct prof_sample *s = &src->sample[i];
        GROW(locs, caplocs, s->nloc + 1);
        GROW(labels, caplabels, s->nlabel + 1);
        for (uint32_t j = 0; j < s->nloc; j++)
            locs[j] = locid[src->locpool[s->loc_off + j]];
        for (uint32_t j = 0; j < s->nlabel; j++) {
            struct prof_label l = src->labelpool[s->label_off + j];
            l.key = tr_str(dst, src, l.key);
            l.str = tr_str(dst, src, l.str);
            l.num_unit = tr_str(dst, src, l.num_unit);
            labels[j] = l;
        }
        prof_add_sample(dst, locs, s->nloc, &src->valpool[s->val_off], labels, s->nlabel, 1);
    }
    for (size_t i = 0; i < src->ncomment; i++) {
        int64_t c = tr_str(dst, src, src->comment[i]);
        size_t j = 0;
        while (j < dst->ncomment && dst->comment[j] != c)
            j++;
        if (j == dst->ncomment)
            prof_append_comment(dst, c);
    }
    free(lines);
    free(locs);
    free(labels);
    free(mapid);
    free(funcid);
    free(locid);
}

int drain_merge(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 3 ? stderr : stdout,
                "usage: drain merge OUT.pb.gz IN.pb.gz...\n"
                "Merges pprof profiles with the same sample types (runs, devices, sessions) into "
                "one.\n");
        return argc < 3 ? 2 : 0;
    }
    const char *outpath = argv[1];
    struct prof out;
    prof_init(&out);
    int64_t start = 0, end = 0;
    char err[512];
    for (int i = 2; i < argc; i++) {
        struct prof in;
        if (prof_read_file(&in, argv[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "drain merge: %s\n", err);
            prof_free(&out);
            return 1;
        }
        if (i == 2) {
            for (size_t k = 0; k < in.nvt; k++)
                prof_append_vt(&out, (struct prof_vt){tr_str(&out, &in, in.vt[k].type),
                                                      tr_str(&out, &in, in.vt[k].unit)});
            out.period_type = (struct prof_vt){tr_str(&out, &in, in.period_type.type),
                                               tr_str(&out, &in, in.period_type.unit)};
            out.period = in.period;
            out.default_sample_type = tr_str(&out, &in, in.default_sample_type);
            out.drop_frames = tr_str(&out, &in, in.drop_frames);
            out.keep_frames = tr_str(&out, &in, in.keep_frames);
        } else if (!same_types(&out, &in)) {
            fprintf(stderr, "drain merge: %s: sample types differ from %s\n", argv[i], argv[2]);
            prof_free(&in);
            prof_free(&out);
            return 1;
        }
        if (in.time_nanos && (!start || in.time_nanos < start))
            start = in.time_nanos;
        int64_t in_end;
        if (__builtin_add_overflow(in.time_nanos, in.duration_nanos, &in_end))
            in_end = INT64_MAX;
        if (in_end > end)
            end = in_end;
        merge_one(&out, &in);
        prof_free(&in);
    }
    out.time_nanos = start;
    if (end <= start || __builtin_sub_overflow(end, start, &out.duration_nanos))
        out.duration_nanos = 0;
    snprintf(err, sizeof(err), "msamp drain %s: merged %d profiles", DRAIN_VERSION, argc - 2);
    prof_comment(&out, err);
    int rc = 0;
    if (prof_write_file(&out, outpath) != 0) {
        fprintf(stderr, "drain merge: %s: %s\n", outpath, strerror(errno));
        rc = 1;
    }
    prof_free(&out);
    return rc;
}
