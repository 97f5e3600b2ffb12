/*
 * An in-memory pprof profile (perftools.profiles.Profile, profile.proto): its string table,
 * sample types, samples, mappings, locations and functions. Ids of mappings, locations and
 * functions are always index + 1 here. Strings, functions, mappings and locations are interned
 * through the prof_* add functions, so equal ones share one entry. Encoding and decoding are
 * prof_codec.h's, files prof_file.h's.
 */
#ifndef DRAIN_PROF_MODEL_H
#define DRAIN_PROF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct prof_vt {
    int64_t type, unit; /* string indexes */
};
struct prof_label {
    int64_t key, str, num, num_unit;
};
struct prof_sample {
    uint32_t loc_off, nloc;       /* in prof.locpool: location ids, leaf first */
    uint32_t val_off;             /* in prof.valpool: nvt values */
    uint32_t label_off, nlabel;   /* in prof.labelpool (samples may share entries) */
};
/* prof_sample.nloc of a sample kept encoded (prof.encode_samples): its Profile.sample field,
 * tag and length included, is prof.enc's val_off bytes from loc_off; it has no pool entries. */
#define PROF_SAMPLE_ENCODED UINT32_MAX
struct prof_mapping {
    uint64_t start, limit, offset;
    int64_t filename, build_id;
    uint8_t has_functions, has_filenames, has_line_numbers, has_inline_frames;
};
struct prof_line {
    uint64_t function_id;
    int64_t line, column;
};
struct prof_location {
    uint64_t address;
    uint32_t mapping_id;      /* 0 or an id (index + 1: PROF_MAX_ITEMS mappings at most) */
    uint32_t line_off, nline; /* in prof.linepool, innermost first */
    uint8_t is_folded;
}; /* 24 bytes: a profile of 10^6 distinct stacks holds millions */
struct prof_function {
    int64_t name, system_name, filename, start_line;
};

struct prof {
    char **str;
    uint32_t *strlen;
    size_t nstr, capstr, capstrlen;
    struct iset strset;

    struct prof_vt *vt;
    size_t nvt, capvt;
    struct prof_sample *sample;
    size_t nsample, capsample;
    uint64_t *locpool;
    size_t nlocpool, caplocpool;
    int64_t *valpool;
    size_t nvalpool, capvalpool;
    struct prof_label *labelpool;
    size_t nlabelpool, caplabelpool;
    struct iset sampleset;
    /* A profile built only to be written out (drain's without reports) sets encode_samples:
     * the samples then added with intern 0 are encoded at once into enc (PROF_SAMPLE_ENCODED),
     * not kept as pool entries (10^6 distinct stacks: 35 MB, not 140). Only the encoder reads
     * them. enc_locs, enc_vals: their location ids and values (the pools' bounds count them).
     * encode_sample: the encoder that does it, set with encode_samples (prof_codec.h's
     * prof_encode_sample: the model does not include its codec, which includes the model). */
    int encode_samples;
    void (*encode_sample)(const struct prof *p, struct buf *out, const uint64_t *locs,
                          uint32_t nloc, const int64_t *vals, const struct prof_label *labels,
                          uint32_t nlabel);
    struct buf enc;
    size_t enc_locs, enc_vals;

    struct prof_mapping *mapping;
    size_t nmapping, capmapping;
    struct prof_location *location;
    size_t nlocation, caplocation;
    struct iset locset;
    struct prof_line *linepool;
    size_t nlinepool, caplinepool;
    struct prof_function *function;
    size_t nfunction, capfunction;
    struct iset funcset;

    int64_t *comment;
    size_t ncomment, capcomment;
    int64_t drop_frames, keep_frames;
    int64_t time_nanos, duration_nanos;
    struct prof_vt period_type;
    int64_t period;
    int64_t default_sample_type;
};

void prof_init(struct prof *p); /* string 0 is "" */
void prof_free(struct prof *p);
/* For a profile that is only read from now on (drain diff holds two): frees the indexes that
 * merge equal strings, functions, locations and samples as they are added. A later add still
 * works, appended without merging. */
void prof_drop_index(struct prof *p);
/* For a profile whose samples a view has read (drain diff's vprofs, verdict/vprof.h, copy their
 * frames): frees its samples, their pools, its locations and their lines (nsample 0). Its strings,
 * which the view points to, mappings, functions and comments stay. */
void prof_drop_samples(struct prof *p);

int64_t prof_str(struct prof *p, const char *s, size_t len);
int64_t prof_cstr(struct prof *p, const char *s);
/* The index of the sample type of this name, or -1. */
int prof_vt_index(const struct prof *p, const char *type);
void prof_add_type(struct prof *p, const char *type, const char *unit);
void prof_comment(struct prof *p, const char *s);
/* Append a sample type, or a comment, whose strings are already in the string table. */
void prof_append_vt(struct prof *p, struct prof_vt vt);
void prof_append_comment(struct prof *p, int64_t str);
uint64_t prof_add_mapping(struct prof *p, const struct prof_mapping *m); /* id; not interned */
uint64_t prof_add_function(struct prof *p, const struct prof_function *f); /* interned */
/* Interned on (mapping, address, lines): returns the location id. With intern 0 the caller
 * guarantees the location is new (it keeps its own cache): it is appended and not indexed. */
uint64_t prof_add_location(struct prof *p, uint64_t mapping_id, uint64_t address,
                           const struct prof_line *lines, uint32_t nline, int intern);
/* Adds values to the sample with these locations and labels, merged into an equal one added with
 * intern 1; with intern 0 it is appended (pprof allows equal samples). Returns its index. */
uint32_t prof_add_sample(struct prof *p, const uint64_t *locs, uint32_t nloc, const int64_t *vals,
                         const struct prof_label *labels, uint32_t nlabel, int intern);
/* The text of a location without lines (unsymbolized): in an image's mapping (a hosted program's
 * library or executable) "[NAME]+0xOFF", the mapping file's base name and the file offset of the
 * address (address - start + offset: the same in every process, wherever ASLR put the image); else
 * (firmware, no mapping) "0xADDR". *module_off gets the offset (or the address) when not NULL. */
#define PROF_ADDR_TEXT 96
const char *prof_addr_text(const struct prof *p, const struct prof_location *l,
                           char buf[PROF_ADDR_TEXT], uint64_t *module_off);
/* The offset prof_addr_text writes after "0x": in the module's file, or the address itself. */
uint64_t prof_addr_off(const struct prof *p, const struct prof_location *l);
/* "[module]+0xOFF", or "0xOFF" when module is NULL (prof_addr_text's forms). */
const char *prof_module_text(char buf[PROF_ADDR_TEXT], const char *module, uint64_t off);
/* The mapping of location l when it is an image's (prof_addr_text's "[NAME]" form), else NULL. */
const struct prof_mapping *prof_loc_module(const struct prof *p, const struct prof_location *l);
/* Per location id (index 0 unused), the id of the first location with the same symbolized frames
 * (functions and line numbers, innermost first): two return addresses of one call line are one
 * site (docs/VERDICTS.md "One verdict model"); a location without lines is its own. The caller
 * frees it. */
uint64_t *prof_loc_canon(const struct prof *p);
/* The label of key on sample s (its string), NULL when it has none. */
const char *prof_label(const struct prof *p, const struct prof_sample *s, const char *key);
/* 1 when samples a and b (not kept encoded: PROF_SAMPLE_ENCODED) are one site: the same symbolized frames (canon:
 * prof_loc_canon's) and the same task label. */
int prof_same_site(const struct prof *p, const uint64_t *canon, uint32_t a, uint32_t b);
/* Reserves room for this many more samples (with their locations) and locations. */
void prof_reserve(struct prof *p, size_t samples, size_t sample_locs, size_t locations);

#endif
