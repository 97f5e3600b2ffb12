/* drain's post-mortem reader (postmortem.h): the msamp_heapdump block from a RAM dump or an ELF
 * core, checked field by field, replayed into the session model as SESSION, STACK and LIVE
 * records. Layout and reading rules: include/msamp_heapdump.h. */
#include "in/postmortem.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msamp_arch.h"
#include "msamp_wire.h"
#include "util.h"
#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

/* The layout's constants (include/msamp_heapdump.h), spelled out: that header is the device's. */
#define HD_MAGIC 0x4448534du
#define HD_HEADER 56u        /* magic .. flags */
#define HD_FLAG_CODED 0x1u
#define HD_MAX_LIVE (1u << 24)
#define HD_MAX_STACKS 65536u
#define HD_MAX_FRAMES (1u << 28)
#define HD_STACK_ENTRY 16u
#define MAX_MAPS 72 /* files mapped: --ram files and a core */
#define MAX_FILES 256 /* a process core's file mappings kept (its NT_FILE note) */
#define MAX_ELF_LOADS 16 /* the --elf's PT_LOAD segments kept */
#define PAGE 4096u /* load addresses are multiples of it */

/* A file mapped in the process a core is of (gdb gcore, the kernel: the NT_FILE note). */
struct core_file {
    uint64_t start, end, offset;
    char *path;
};

struct region {
    uint64_t base, size;
    const uint8_t *p;
    char name[96];
};

struct pm_dump {
    struct region r[PM_MAX_REGIONS];
    size_t nr;
    struct { void *p; size_t n; } maps[MAX_MAPS];
    size_t nmaps;
    /* From a process core's NT_FILE note. */
    struct core_file *files;
    size_t nfiles;
    /* From --elf. */
    int have_elf, elf_big, elf_class64, have_sym;
    unsigned arch;
    uint64_t sym_addr, sym_size;
    int elf_dyn; /* ET_DYN: a PIE (or a shared object), loaded at a bias found in the dump */
    struct { uint64_t vaddr, offset, filesz, memsz; } load[MAX_ELF_LOADS];
    size_t nload;
    uint64_t bias;  /* the --elf's load bias: its addresses + bias are the dump's */
    const char *bias_how; /* how it was found, or NULL (none: 0) */
    uint8_t build_id[MSAMP_WIRE_MAX_BUILD_ID];
    size_t build_id_len;
    char elf_name[96];
    uint64_t note_addr; /* the build-id note's address in the image, and its bytes */
    uint8_t *note;
    size_t note_len;
    int have_addr; /* pm_set_block_addr */
    uint64_t given_addr;
    /* The block found. */
    int found, big, scanned, candidates;
    uint64_t at;
    uint32_t version, ptr, flags, live_cap, ways, stack_cap, frame_cap, max_depth, session_id,
        interval, tick_hz, live_used, stacks_used, frames_used;
    uint64_t a_addr, a_size, a_stack, a_birth, a_interval, a_stacks, a_frames;
    uint32_t in_use, defined, skipped_stacks;
    char warn[512];
};

static uint64_t rd(const uint8_t *p, unsigned n, int big);

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

struct pm_dump *pm_new(void)
{
    struct pm_dump *d = calloc(1, sizeof(*d));
    if (!d)
        drain_oom();
    return d;
}

void pm_free(struct pm_dump *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nmaps; i++)
        munmap(d->maps[i].p, d->maps[i].n);
    free(d->note);
    for (size_t i = 0; i < d->nfiles; i++)
        free(d->files[i].path);
    free(d->files);
    free(d);
}

int pm_add_mem(struct pm_dump *d, uint64_t base, const uint8_t *p, uint64_t size, const char *name,
               char *err, size_t errlen)
{
    if (size == 0)
        return 0;
    if (base + size - 1u < base) {
        snprintf(err, errlen, "%s: %" PRIu64 " bytes at 0x%" PRIx64 " run past the end of the "
                 "address space", name, size, base);
        return -1;
    }
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *o = &d->r[i];
        if (base <= o->base + o->size - 1u && o->base <= base + size - 1u) {
            snprintf(err, errlen, "%s (0x%" PRIx64 "-0x%" PRIx64 ") overlaps %s (0x%" PRIx64
                     "-0x%" PRIx64 "): each address must come from one region only",
                     name, base, base + size - 1u, o->name, o->base, o->base + o->size - 1u);
            return -1;
        }
    }
    if (d->nr == PM_MAX_REGIONS) {
        snprintf(err, errlen, "%s: more than %d memory regions", name, PM_MAX_REGIONS);
        return -1;
    }
    struct region *r = &d->r[d->nr++];
    r->base = base;
    r->size = size;
    r->p = p;
    snprintf(r->name, sizeof(r->name), "%s", name);
    return 0;
}

/* Maps a whole file read-only. NULL with a message. */
static const uint8_t *map_file(struct pm_dump *d, const char *path, uint64_t *size, char *err,
                               size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        close(fd);
        return NULL;
    }
    if (st.st_size == 0 || (uint64_t)st.st_size > PM_MAX_FILE_BYTES || d->nmaps == MAX_MAPS) {
        snprintf(err, errlen, "%s: %s", path,
                 st.st_size == 0 ? "empty file" : d->nmaps == MAX_MAPS ? "too many files"
                                                                    : "larger than 16 GiB");
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map it: %s", path, strerror(errno));
        return NULL;
    }
    d->maps[d->nmaps].p = p;
    d->maps[d->nmaps++].n = (size_t)st.st_size;
    *size = (uint64_t)st.st_size;
    return p;
}

int pm_add_ram(struct pm_dump *d, const char *spec, char *err, size_t errlen)
{
    const char *at = strrchr(spec, '@');
    char *end;
    if (!at || at == spec || !at[1]) {
        snprintf(err, errlen, "--ram %s: expected FILE@ADDR (the address the image starts at: "
                 "ram.bin@0x40000000)", spec);
        return -2;
    }
    errno = 0;
    unsigned long long base = strtoull(at + 1, &end, 0);
    if (errno || *end || at[1] == '-') {
        snprintf(err, errlen, "--ram %s: %s is not an address (0x40000000, or decimal)", spec,
                 at + 1);
        return -2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%.*s", (int)(at - spec), spec);
    uint64_t size;
    const uint8_t *p = map_file(d, path, &size, err, errlen);
    if (!p)
        return -1;
    char name[96];
    snprintf(name, sizeof(name), "%s@0x%llx", base_name(path), base);
    return pm_add_mem(d, base, p, size, name, err, errlen);
}

/* A process core's NT_FILE note (name "CORE"): count, page size, count (start, end, offset in
 * pages) words, then count NUL-terminated paths. The files mapped are kept (the first MAX_FILES);
 * a malformed note is ignored (it only helps find a PIE's load bias and name the mappings). */
static void read_nt_file(struct pm_dump *d, const uint8_t *p, uint64_t n, int big, unsigned w)
{
    if (n < 2u * w)
        return;
    uint64_t count = rd(p, w, big), page = rd(p + w, w, big);
    if (count == 0 || count > (n - 2u * w) / (3u * w) || page == 0 || (page & (page - 1u)))
        return;
    const uint8_t *name = p + 2u * w + count * 3u * w, *end = p + n;
    for (uint64_t i = 0; i < count && d->nfiles < MAX_FILES && name < end; i++) {
        const uint8_t *z = memchr(name, 0, (size_t)(end - name));
        if (!z)
            break;
        const uint8_t *t = p + 2u * w + i * 3u * w;
        uint64_t start = rd(t, w, big), stop = rd(t + w, w, big), off = rd(t + 2u * w, w, big);
        if (stop > start && off <= UINT64_MAX / page) {
            if (!d->files)
                d->files = xcalloc(MAX_FILES, sizeof(*d->files));
            struct core_file *f = &d->files[d->nfiles++];
            f->start = start;
            f->end = stop;
            f->offset = off * page;
            f->path = xstrndup((const char *)name, (size_t)(z - name));
        }
        name = z + 1;
    }
}

/* The notes of a PT_NOTE segment: 4-byte aligned name and descriptor (as Linux writes them). */
void pm_add_core_notes(struct pm_dump *d, const uint8_t *p, uint64_t n, int big, unsigned w)
{
    uint64_t o = 0;
    while (n - o >= 12u) {
        uint64_t namesz = rd(p + o, 4, big), descsz = rd(p + o + 4, 4, big),
                 type = rd(p + o + 8, 4, big);
        uint64_t name_at = o + 12u, desc_at = name_at + ((namesz + 3u) & ~(uint64_t)3);
        if (desc_at > n || descsz > n - desc_at)
            return;
        if (type == 0x46494c45u /* NT_FILE */ && namesz == 5 && !memcmp(p + name_at, "CORE", 5))
            read_nt_file(d, p + desc_at, descsz, big, w);
        o = desc_at + ((descsz + 3u) & ~(uint64_t)3);
        if (o > n)
            return;
    }
}

int pm_add_core(struct pm_dump *d, const char *path, char *err, size_t errlen)
{
    uint64_t size;
    const uint8_t *p = map_file(d, path, &size, err, errlen);
    if (!p)
        return -1;
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)(uintptr_t)p, (size_t)size);
    GElf_Ehdr eh;
    size_t nph;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        snprintf(err, errlen, "%s: not an ELF file (--core wants an ELF core: gdb gcore, QEMU "
                 "dump-guest-memory without -z; a raw image is --ram FILE@ADDR)", path);
        if (e)
            elf_end(e);
        return -1;
    }
    if (eh.e_type != ET_CORE) {
        snprintf(err, errlen, "%s: an ELF but not a core file (type %u): the firmware's ELF "
                 "goes to --elf", path, (unsigned)eh.e_type);
        elf_end(e);
        return -1;
    }
    if (elf_getphdrnum(e, &nph) != 0) {
        snprintf(err, errlen, "%s: unreadable program headers: %s", path, elf_errmsg(-1));
        elf_end(e);
        return -1;
    }
    int loads = 0, rc = 0;
    for (size_t i = 0; i < nph && rc == 0; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph)) {
            snprintf(err, errlen, "%s: program header %zu unreadable", path, i);
            rc = -1;
            break;
        }
        if (ph.p_type == PT_NOTE && ph.p_offset <= size && ph.p_filesz <= size - ph.p_offset &&
            d->nfiles == 0)
            pm_add_core_notes(d, p + ph.p_offset, ph.p_filesz, eh.e_ident[EI_DATA] == ELFDATA2MSB,
                            eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8u : 4u);
        if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
            continue;
        if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
            snprintf(err, errlen, "%s: segment %zu (0x%" PRIx64 ", %" PRIu64 " bytes at file "
                     "offset %" PRIu64 ") runs past the end of the file (%" PRIu64 " bytes): "
                     "a truncated core", path, i, (uint64_t)ph.p_vaddr, (uint64_t)ph.p_filesz,
                     (uint64_t)ph.p_offset, size);
            rc = -1;
            break;
        }
        /* gdb's cores give virtual addresses (p_paddr 0); QEMU's give both, equal without an
         * MMU mapping. */
        uint64_t base = ph.p_vaddr == 0 && ph.p_paddr != 0 ? ph.p_paddr : ph.p_vaddr;
        char name[96];
        snprintf(name, sizeof(name), "%s segment %zu", base_name(path), i);
        rc = pm_add_mem(d, base, p + ph.p_offset, ph.p_filesz, name, err, errlen);
        loads++;
    }
    elf_end(e);
    if (rc == 0 && loads == 0) {
        snprintf(err, errlen, "%s: a core file without any memory (no PT_LOAD segment with data)",
                 path);
        rc = -1;
    }
    return rc;
}

int pm_set_elf(struct pm_dump *d, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--elf %s: %s", path, strerror(errno));
        return -1;
    }
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr eh;
    int rc = -1;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        snprintf(err, errlen, "--elf %s: not an ELF file", path);
        goto out;
    }
    if (eh.e_type == ET_CORE) {
        snprintf(err, errlen, "--elf %s: a core file, not the firmware: give it to --core and "
                 "the firmware's ELF to --elf", path);
        goto out;
    }
    d->have_elf = 1;
    d->elf_big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    d->elf_class64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
    d->arch = msamp_arch_of_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_entry);
    snprintf(d->elf_name, sizeof(d->elf_name), "%s", base_name(path));
    d->elf_dyn = eh.e_type == ET_DYN;
    size_t nph;
    if (elf_getphdrnum(e, &nph) == 0) {
        for (size_t i = 0; i < nph && d->nload < MAX_ELF_LOADS; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_memsz) {
                d->load[d->nload].vaddr = ph.p_vaddr;
                d->load[d->nload].offset = ph.p_offset;
                d->load[d->nload].filesz = ph.p_filesz;
                d->load[d->nload++].memsz = ph.p_memsz;
            }
        }
    }
    size_t shstr;
    if (elf_getshdrstrndx(e, &shstr) != 0)
        shstr = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *nm = shstr ? elf_strptr(e, shstr, sh.sh_name) : NULL;
        if (sh.sh_type == SHT_NOTE && nm && strcmp(nm, ".note.gnu.build-id") == 0) {
            Elf_Data *data = elf_getdata(scn, NULL);
            if (data && data->d_buf && data->d_size >= 16 && data->d_size <= 256) {
                const uint8_t *b = data->d_buf;
                GElf_Nhdr nh;
                size_t name_off, desc_off;
                if (gelf_getnote(data, 0, &nh, &name_off, &desc_off) > 0 &&
                    nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= MSAMP_WIRE_MAX_BUILD_ID) {
                    memcpy(d->build_id, b + desc_off, nh.n_descsz);
                    d->build_id_len = nh.n_descsz;
                }
                /* The bytes as in the image (the file's byte order: elf_getdata's are the
                 * host's), compared with the dump's where it holds them. */
                Elf_Data *raw = elf_rawdata(scn, NULL);
                if ((sh.sh_flags & SHF_ALLOC) && raw && raw->d_buf && raw->d_size == data->d_size) {
                    d->note = xmalloc(raw->d_size);
                    memcpy(d->note, raw->d_buf, raw->d_size);
                    d->note_len = raw->d_size;
                    d->note_addr = sh.sh_addr;
                }
            }
        }
        if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n && !d->have_sym; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, (int)i, &sym))
                break;
            const char *sn = elf_strptr(e, sh.sh_link, sym.st_name);
            if (sn && strcmp(sn, "msamp_heapdump") == 0 && sym.st_shndx != SHN_UNDEF &&
                GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
                d->have_sym = 1;
                d->sym_addr = sym.st_value;
                d->sym_size = sym.st_size;
            }
        }
    }
    rc = 0;
out:
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

void pm_set_block_addr(struct pm_dump *d, uint64_t addr, int have)
{
    d->have_addr = have;
    d->given_addr = addr;
}

/* n bytes at device address a, wholly inside one region, or NULL. */
static const uint8_t *mem(const struct pm_dump *d, uint64_t a, uint64_t n)
{
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *r = &d->r[i];
        if (a >= r->base && a - r->base <= r->size && n <= r->size - (a - r->base))
            return r->p + (a - r->base);
    }
    return NULL;
}

static uint64_t rd(const uint8_t *p, unsigned n, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8u * (big ? n - 1u - i : i));
    return v;
}

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1u));
}

/* Checks the header at a, read in byte order big: 0, or -1 with the reason in why. Fills d. */
static int check_block(struct pm_dump *d, uint64_t a, int big, char *why, size_t n)
{
    const uint8_t *h = mem(d, a, HD_HEADER);
    if (!h) {
        snprintf(why, n, "its header (0x%" PRIx64 ", %u bytes) is not wholly in the dump", a,
                 HD_HEADER);
        return -1;
    }
    if (rd(h, 4, big) != HD_MAGIC) {
        snprintf(why, n, "no magic there (0x%08" PRIx64 ", expected 0x%08x): msamp_init() had not "
                 "run, or the address or the ELF is not the dump's", rd(h, 4, big), HD_MAGIC);
        return -1;
    }
    d->version = (uint32_t)rd(h + 4, 2, big);
    d->ptr = (uint32_t)rd(h + 6, 2, big);
    if (d->version != 3 && d->version != 4) {
        snprintf(why, n, "block version %u: this drain reads versions 3 and 4", d->version);
        return -1;
    }
    if (d->ptr != 4 && d->ptr != 8) {
        snprintf(why, n, "pointer size %u (expected 4 or 8)", d->ptr);
        return -1;
    }
    /* The header's fields in their order (flags since version 4). */
    uint32_t *const field[] = {&d->live_cap,   &d->ways,     &d->stack_cap,   &d->frame_cap,
                               &d->max_depth,  &d->session_id, &d->interval,  &d->tick_hz,
                               &d->live_used,  &d->stacks_used, &d->frames_used, &d->flags};
    for (int i = 0; i < 12; i++)
        *field[i] = i < 11 || d->version >= 4 ? (uint32_t)rd(h + 8 + 4 * i, 4, big) : 0;
    if (d->flags & ~HD_FLAG_CODED) {
        snprintf(why, n, "unknown flags 0x%x", d->flags);
        return -1;
    }
    int coded = d->flags & HD_FLAG_CODED;
    if (!is_pow2(d->live_cap) || d->live_cap > HD_MAX_LIVE) {
        snprintf(why, n, "live_capacity %u (a power of two up to 2^24 expected)", d->live_cap);
        return -1;
    }
    if (!is_pow2(d->ways) || d->ways > d->live_cap) {
        snprintf(why, n, "live_ways %u (a power of two up to live_capacity %u expected)", d->ways,
                 d->live_cap);
        return -1;
    }
    if (d->max_depth == 0 || d->max_depth > MSAMP_WIRE_MAX_DEPTH) {
        snprintf(why, n, "max_depth %u (1..%u expected)", d->max_depth, MSAMP_WIRE_MAX_DEPTH);
        return -1;
    }
    if (coded ? d->stack_cap > HD_MAX_STACKS
              : (!is_pow2(d->stack_cap) || d->stack_cap < 2 || d->stack_cap > HD_MAX_STACKS ||
                 d->frame_cap < d->max_depth + 1u || d->frame_cap > HD_MAX_FRAMES)) {
        snprintf(why, n, "stack_capacity %u, frame_capacity %u (a power of two 2..65536 stacks, "
                 "max_depth+1..2^28 frames expected)", d->stack_cap, d->frame_cap);
        return -1;
    }
    uint64_t pa = a + (HD_HEADER + d->ptr - 1u) / d->ptr * d->ptr;
    const uint8_t *pp = mem(d, pa, 7u * d->ptr);
    if (!pp) {
        snprintf(why, n, "its array pointers (0x%" PRIx64 ") are not wholly in the dump", pa);
        return -1;
    }
    /* The block's array pointers in their order. */
    uint64_t *const array[7] = {&d->a_addr,     &d->a_size,   &d->a_stack, &d->a_birth,
                                &d->a_interval, &d->a_stacks, &d->a_frames};
    uint64_t ptrs[7];
    for (int i = 0; i < 7; i++)
        ptrs[i] = *array[i] = rd(pp + (size_t)i * d->ptr, d->ptr, big);
    static const char *names[7] = {"live_addr", "live_size", "live_stack", "live_birth",
                                   "live_interval", "stacks", "frames"};
    uint64_t lc = d->live_cap, word = d->ptr, byte_or_word = coded ? 1u : word;
    /* Widths as the header declares them: live_addr, live_size and frames are uintptr_t, the
     * stack ids, births and intervals uint32_t (one byte each in the coded block). */
    uint64_t bytes[7] = {lc * word,  lc * byte_or_word, lc * 4u, lc * 4u, coded ? lc : lc * 4u,
                         (uint64_t)d->stack_cap * HD_STACK_ENTRY, (uint64_t)d->frame_cap * word};
    for (int i = 0; i < 7; i++) {
        /* The compact tables' block has no stacks, frames, stack ids or births. */
        int optional = coded && i != 0 && i != 1 && i != 4;
        if (ptrs[i] == 0 && optional)
            continue;
        if (ptrs[i] == 0 || !mem(d, ptrs[i], bytes[i])) {
            snprintf(why, n, "array %s (0x%" PRIx64 ", %" PRIu64 " bytes) is %s", names[i],
                     ptrs[i], bytes[i],
                     ptrs[i] == 0 ? "missing (null pointer)"
                                  : "not wholly in the dump: a truncated image, a wrong base "
                                    "address or a region not dumped");
            return -1;
        }
    }
    d->at = a;
    d->big = big;
    return 0;
}

/* Stack id's entry: 1 with its first frame and depth when it is defined and consistent (frames
 * wholly in the pool, headed by the id), 0 when undefined (depth 0: free, or being moved), -1
 * when inconsistent. */
static int stack_entry(const struct pm_dump *d, const uint8_t *st, const uint8_t *fr, uint32_t id,
                       uint32_t *first, uint32_t *depth)
{
    const uint8_t *e = st + (size_t)id * HD_STACK_ENTRY;
    *first = (uint32_t)rd(e + 4, 4, d->big);
    *depth = (uint32_t)rd(e + 8, 2, d->big);
    if (*depth == 0)
        return 0;
    if (*depth > d->max_depth || *first == 0 || *first > d->frame_cap ||
        *depth > d->frame_cap - *first ||
        rd(fr + (size_t)(*first - 1u) * d->ptr, d->ptr, d->big) != id)
        return -1;
    return 1;
}

/* 1 when the dump holds the --elf's build-id note, moved by bias, with the ELF's bytes. */
static int note_at(const struct pm_dump *d, uint64_t bias)
{
    const uint8_t *p = d->note_len ? mem(d, d->note_addr + bias, d->note_len) : NULL;
    return p && memcmp(p, d->note, d->note_len) == 0;
}

/* A PIE's load bias (docs/POSTMORTEM.md, "Hosted programs"): each file mapping of the core
 * (NT_FILE) at the file offset of one of the ELF's PT_LOAD segments gives a candidate, the start
 * of the mapping less the segment's page; the first whose build-id note the dump holds where the
 * candidate puts it is taken, else the first from a file of the ELF's name. Without NT_FILE (a
 * core of another writer, or --ram images), the pages of the dump that hold the note at its page
 * offset. None found: 0, as for a program linked at fixed addresses. */
static void find_bias(struct pm_dump *d)
{
    d->bias = 0;
    d->bias_how = NULL;
    if (!d->have_elf || !d->elf_dyn || note_at(d, 0))
        return; /* linked at fixed addresses, or loaded where linked (a firmware built as ET_DYN) */
    int named = 0;
    uint64_t named_bias = 0;
    for (size_t i = 0; i < d->nfiles; i++) {
        const struct core_file *f = &d->files[i];
        for (size_t k = 0; k < d->nload; k++) {
            if ((d->load[k].offset & ~(uint64_t)(PAGE - 1u)) != f->offset)
                continue;
            uint64_t bias = f->start - (d->load[k].vaddr & ~(uint64_t)(PAGE - 1u));
            if (note_at(d, bias)) {
                d->bias = bias;
                d->bias_how = "mapped file and build-id note";
                return;
            }
            if (!named && strcmp(base_name(f->path), d->elf_name) == 0) {
                named = 1;
                named_bias = bias;
            }
            break;
        }
    }
    if (named) {
        d->bias = named_bias;
        d->bias_how = "mapped file of the same name";
        return;
    }
    if (!d->note_len)
        return;
    uint64_t in_page = d->note_addr & (PAGE - 1u), page = d->note_addr - in_page;
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *r = &d->r[i];
        uint64_t a = (r->base + PAGE - 1u) & ~(uint64_t)(PAGE - 1u);
        for (; a >= r->base && a - r->base < r->size; a += PAGE) {
            if (note_at(d, a - page)) {
                d->bias = a - page;
                d->bias_how = "build-id note found in the dump";
                return;
            }
        }
    }
}

int pm_find(struct pm_dump *d, char *err, size_t errlen)
{
    char why[512];
    if (d->nr == 0) {
        snprintf(err, errlen, "no memory to read (--ram FILE@ADDR or --core FILE)");
        return -1;
    }
    find_bias(d);
    if (d->have_elf && d->note_len) {
        /* The image holds the firmware's build-id note where the ELF says: they must agree. */
        const uint8_t *p = mem(d, d->note_addr + d->bias, d->note_len);
        if (p && memcmp(p, d->note, d->note_len) != 0) {
            snprintf(err, errlen, "--elf %s is not the firmware of this dump: its build-id note "
                     "at 0x%" PRIx64 " differs from the dump's bytes there", d->elf_name,
                     d->note_addr + d->bias);
            return -1;
        }
    }
    uint64_t given = d->have_addr ? d->given_addr : d->sym_addr + d->bias;
    if (d->have_addr || d->have_sym) {
        const char *src = d->have_addr ? "given" : "symbol msamp_heapdump of --elf";
        if (d->have_sym && d->sym_size && d->sym_size < HD_HEADER + 7u * 4u) {
            snprintf(err, errlen, "--elf %s: symbol msamp_heapdump is %" PRIu64 " bytes, not the "
                     "block (an ELF of another program?)", d->elf_name, d->sym_size);
            return -1;
        }
        const uint8_t *h = mem(d, given, 4);
        if (!h) {
            snprintf(err, errlen, "the block's address 0x%" PRIx64 " (%s) is in none of the dump's "
                     "regions: a wrong base address (--ram FILE@ADDR), a region not dumped, or an "
                     "ELF of another firmware%s", given, src,
                     d->have_sym && !d->have_addr && d->elf_dyn && !d->bias_how
                         ? " (the ELF is position-independent and its load address was not found: "
                           "no mapping of it in the core's NT_FILE note, no build-id note in the "
                           "dump)"
                         : "");
            return -1;
        }
        int big = rd(h, 4, 0) == HD_MAGIC ? 0 : rd(h, 4, 1) == HD_MAGIC ? 1 : d->elf_big;
        if (check_block(d, given, big, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "no valid msamp_heapdump block at 0x%" PRIx64 " (%s): %s", given,
                     src, why);
            return -1;
        }
    } else {
        /* No symbol: scan every region, at 4-byte steps, for a magic in either order whose
         * header passes every check. */
        d->scanned = 1;
        char first_why[1024] = "";
        int cands = 0, found = 0;
        struct pm_dump keep;
        for (size_t i = 0; i < d->nr; i++) {
            const struct region *r = &d->r[i];
            uint64_t start = (4u - (r->base & 3u)) & 3u;
            for (uint64_t o = start; o + 4u <= r->size; o += 4u) {
                const uint8_t *q = r->p + o;
                int big;
                if (rd(q, 4, 0) == HD_MAGIC)
                    big = 0;
                else if (rd(q, 4, 1) == HD_MAGIC)
                    big = 1;
                else
                    continue;
                cands++;
                if (check_block(d, r->base + o, big, why, sizeof(why)) != 0) {
                    if (!first_why[0])
                        snprintf(first_why, sizeof(first_why), "at 0x%" PRIx64 ": %s",
                                 r->base + o, why);
                    continue;
                }
                if (found++ == 0)
                    keep = *d;
            }
        }
        if (!found) {
            uint64_t total = 0;
            for (size_t i = 0; i < d->nr; i++)
                total += d->r[i].size;
            if (cands)
                snprintf(err, errlen, "no valid msamp_heapdump block in the %" PRIu64 " bytes of "
                         "the dump: %d magic%s found, none with a valid header (the first %s)",
                         total, cands, cands == 1 ? "" : "s", first_why);
            else
                snprintf(err, errlen, "no msamp_heapdump block in the %" PRIu64 " bytes of the "
                         "dump (no magic in either byte order): not the device's RAM, a region "
                         "without the block (it is in .bss: dump all RAM), msamp_init() not run, "
                         "or firmware built with MSAMP_CFG_HEAPDUMP=0", total);
            return -1;
        }
        *d = keep;
        d->candidates = found;
    }
    if (d->have_elf) {
        if (d->big != d->elf_big) {
            snprintf(err, errlen, "--elf %s is %s-endian but the dump's block is %s-endian: a wrong "
                     "ELF", d->elf_name, d->elf_big ? "big" : "little", d->big ? "big" : "little");
            return -1;
        }
        if ((d->ptr == 8) != d->elf_class64 && msamp_arch_get(d->arch)->class_is_ptr) {
            snprintf(err, errlen, "--elf %s is ELF%d but the dump's block has %u-byte pointers: a "
                     "wrong ELF", d->elf_name, d->elf_class64 ? 64 : 32, d->ptr);
            return -1;
        }
    }
    d->found = 1;
    /* What the emitter will find, for the description and the warnings. */
    d->in_use = 0;
    const uint8_t *la = mem(d, d->a_addr, (uint64_t)d->live_cap * d->ptr);
    for (uint32_t i = 0; i < d->live_cap; i++)
        d->in_use += rd(la + (size_t)i * d->ptr, d->ptr, d->big) != 0;
    d->defined = d->skipped_stacks = 0;
    if (!(d->flags & HD_FLAG_CODED)) {
        const uint8_t *st = mem(d, d->a_stacks, (uint64_t)d->stack_cap * HD_STACK_ENTRY);
        const uint8_t *fr = mem(d, d->a_frames, (uint64_t)d->frame_cap * d->ptr);
        for (uint32_t id = 1; id < d->stack_cap; id++) {
            uint32_t first, depth;
            int k = stack_entry(d, st, fr, id, &first, &depth);
            d->defined += k == 1;
            d->skipped_stacks += k < 0;
        }
    }
    size_t w = 0;
    d->warn[0] = 0;
    if (d->candidates > 1)
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "%d valid blocks found by the "
                              "scan: the first (0x%" PRIx64 ") is read (give --elf to pick by "
                              "symbol); ", d->candidates, d->at);
    if (d->in_use != d->live_used && w < sizeof(d->warn))
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "the block's live_used says %u "
                              "but %u slots are in use (a dump taken mid-update?); ",
                              d->live_used, d->in_use);
    if (d->skipped_stacks && w < sizeof(d->warn))
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "%u stack%s skipped (depth or "
                              "frames out of range, or not headed by its id): their samples go to "
                              "[unknown stack]; ", d->skipped_stacks, plural(d->skipped_stacks));
    if (w >= 2 && w < sizeof(d->warn))
        d->warn[w - 2] = 0;
    return 0;
}

const char *pm_warnings(const struct pm_dump *d)
{
    return d->warn;
}

void pm_describe(const struct pm_dump *d, char *out, size_t n)
{
    char bias[160] = "";
    if (d->bias_how)
        snprintf(bias, sizeof(bias), ", %s loaded at +0x%" PRIx64 " (%s)", d->elf_name, d->bias,
                 d->bias_how);
    snprintf(out, n, "block at 0x%" PRIx64 " (%s), version %u%s, %s-endian, %u-byte pointers, "
             "%u of %u slots in use, %u stacks, interval %u%s", d->at,
             d->scanned ? "found by scanning" : "symbol msamp_heapdump", d->version,
             d->flags & HD_FLAG_CODED ? " (compact tables: coded sizes, no stacks)" : "",
             d->big ? "big" : "little", d->ptr, d->in_use, d->live_cap, d->defined, d->interval,
             bias);
}

static void emit_mapping(msamp_record_fn fn, void *arg, uint64_t start, uint64_t limit,
                         uint64_t offset, const uint8_t *bid, size_t bid_len, const char *path)
{
    struct msamp_record r;
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_MAPPING;
    r.u.mapping.start = start;
    r.u.mapping.limit = limit;
    r.u.mapping.offset = offset;
    if (bid_len && bid_len <= sizeof(r.u.mapping.build_id)) {
        r.u.mapping.build_id_len = (uint8_t)bid_len;
        memcpy(r.u.mapping.build_id, bid, bid_len);
    }
    r.u.mapping.path = (const uint8_t *)path;
    r.u.mapping.path_len = strlen(path);
    fn(arg, &r);
}

/* A process's core (NT_FILE) or a PIE: MAPPING records, as the hosted port sends them, so that
 * return addresses symbolize at the ELF's own addresses: the --elf's PT_LOAD segments where they
 * were loaded (with its build-id), then the core's other file mappings (shared libraries: their
 * paths, no build-id). A firmware's dump has none: its addresses are the ELF's. */
static void emit_mappings(const struct pm_dump *d, msamp_record_fn fn, void *arg)
{
    if (d->nfiles == 0 && !d->bias_how)
        return;
    size_t ours = 0;
    if (d->have_elf && (!d->elf_dyn || d->bias_how)) {
        for (size_t k = 0; k < d->nload; k++) {
            uint64_t start = d->load[k].vaddr + d->bias;
            emit_mapping(fn, arg, start, start + d->load[k].memsz, d->load[k].offset, d->build_id,
                         d->build_id_len, d->elf_name);
        }
        ours = d->nload;
    }
    for (size_t i = 0; i < d->nfiles; i++) {
        const struct core_file *f = &d->files[i];
        int overlaps = 0;
        for (size_t k = 0; k < ours && !overlaps; k++) {
            uint64_t start = d->load[k].vaddr + d->bias;
            overlaps = f->start < start + d->load[k].memsz && start < f->end;
        }
        if (!overlaps)
            emit_mapping(fn, arg, f->start, f->end, f->offset, NULL, 0, f->path);
    }
}

void pm_emit(const struct pm_dump *d, msamp_record_fn fn, void *arg)
{
    if (!d->found)
        return;
    int coded = d->flags & HD_FLAG_CODED;
    unsigned w = d->ptr;
    struct msamp_record r;
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_SESSION;
    r.u.session.version = MSAMP_WIRE_VERSION;
    r.u.session.flags = (uint8_t)((d->big ? MSAMP_SESSION_FLAG_BIG_ENDIAN : 0u) |
                                  MSAMP_SESSION_FLAG_ADDRESSES);
    r.u.session.arch = (uint8_t)(d->have_elf ? d->arch : MSAMP_ARCH_UNKNOWN);
    r.u.session.ptr_size = (uint8_t)w;
    r.u.session.session_id = d->session_id;
    r.u.session.tick_hz = d->tick_hz;
    r.u.session.interval = d->interval;
    r.u.session.live_capacity = d->live_cap;
    r.u.session.stack_capacity = d->stack_cap;
    r.u.session.max_depth = d->max_depth;
    if (d->have_elf) {
        r.u.session.build_id_len = (uint8_t)d->build_id_len;
        memcpy(r.u.session.build_id, d->build_id, d->build_id_len);
    }
    fn(arg, &r);
    emit_mappings(d, fn, arg);

    char text[MSAMP_WIRE_MAX_MARK + 1];
    int tl = snprintf(text, sizeof(text), "post-mortem: heapdump v%u at 0x%" PRIx64 "%s",
                      d->version, d->at, coded ? ", coded sizes" : "");
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_MARK;
    r.u.mark.text = (const uint8_t *)text;
    r.u.mark.len = tl < 0 ? 0 : (size_t)tl < sizeof(text) ? (size_t)tl : sizeof(text) - 1u;
    fn(arg, &r);

    /* Stacks: ids 1..capacity-1 with depth != 0 (stored last), frames wholly in the pool and
     * headed by their id (a stack being moved has depth 0; anything else inconsistent is
     * skipped and its slots' samples go to [unknown stack]). */
    if (!coded) {
        const uint8_t *st = mem(d, d->a_stacks, (uint64_t)d->stack_cap * HD_STACK_ENTRY);
        const uint8_t *fr = mem(d, d->a_frames, (uint64_t)d->frame_cap * w);
        uint64_t frames[MSAMP_WIRE_MAX_DEPTH];
        for (uint32_t id = 1; id < d->stack_cap; id++) {
            uint32_t first, depth;
            if (stack_entry(d, st, fr, id, &first, &depth) != 1)
                continue;
            for (uint32_t k = 0; k < depth; k++)
                frames[k] = rd(fr + (size_t)(first + k) * w, w, d->big);
            memset(&r, 0, sizeof(r));
            r.type = MSAMP_REC_STACK;
            r.u.stack.id = id;
            r.u.stack.depth = depth;
            r.u.stack.frames = frames;
            fn(arg, &r);
        }
    }
    const uint8_t *la = mem(d, d->a_addr, (uint64_t)d->live_cap * w);
    const uint8_t *ls = mem(d, d->a_size, (uint64_t)d->live_cap * (coded ? 1u : w));
    const uint8_t *li = mem(d, d->a_interval, (uint64_t)d->live_cap * (coded ? 1u : 4u));
    const uint8_t *lk = d->a_stack ? mem(d, d->a_stack, (uint64_t)d->live_cap * 4u) : NULL;
    const uint8_t *lb = d->a_birth ? mem(d, d->a_birth, (uint64_t)d->live_cap * 4u) : NULL;
    for (uint32_t i = 0; i < d->live_cap; i++) {
        uint64_t addr = rd(la + (size_t)i * w, w, d->big);
        if (addr == 0)
            continue;
        memset(&r, 0, sizeof(r));
        r.type = MSAMP_REC_LIVE;
        r.u.live.slot = i;
        r.u.live.addr = addr & ~(uint64_t)1; /* bit 0: a realloc under way (docs/POSTMORTEM.md) */
        r.u.live.has_addr = 1;
        r.u.live.has_interval = 1;
        if (coded) {
            r.u.live.size = msamp_thin_decode(ls[i]);
            r.u.live.interval = msamp_thin_decode(li[i]);
        } else {
            r.u.live.size = rd(ls + (size_t)i * w, w, d->big);
            r.u.live.interval = rd(li + (size_t)i * 4u, 4, d->big);
        }
        r.u.live.stack_id = lk ? rd(lk + (size_t)i * 4u, 4, d->big) : 0;
        r.u.live.birth = lb ? rd(lb + (size_t)i * 4u, 4, d->big) : 0;
        fn(arg, &r);
    }
}

const uint8_t *pm_mem(const struct pm_dump *d, uint64_t a, uint64_t n)
{
    return mem(d, a, n);
}

int pm_big(const struct pm_dump *d)
{
    return d->big;
}

unsigned pm_ptr(const struct pm_dump *d)
{
    return d->ptr;
}

uint64_t pm_bias(const struct pm_dump *d)
{
    return d->bias;
}

uint32_t pm_live_capacity(const struct pm_dump *d)
{
    return d->found ? d->live_cap : 0;
}

int pm_live_slot(const struct pm_dump *d, uint32_t i, uint64_t *addr, uint64_t *size,
                 uint32_t *stack)
{
    if (!d->found || i >= d->live_cap)
        return 0;
    unsigned w = d->ptr;
    int coded = d->flags & HD_FLAG_CODED;
    const uint8_t *la = mem(d, d->a_addr + (uint64_t)i * w, w);
    const uint8_t *ls = mem(d, d->a_size + (uint64_t)i * (coded ? 1u : w), coded ? 1u : w);
    const uint8_t *lk = d->a_stack ? mem(d, d->a_stack + (uint64_t)i * 4u, 4) : NULL;
    uint64_t a = la ? rd(la, w, d->big) : 0;
    if (a == 0 || !ls)
        return 0;
    *addr = a & ~(uint64_t)1;
    *size = coded ? msamp_thin_decode(ls[0]) : rd(ls, w, d->big);
    *stack = lk ? (uint32_t)rd(lk, 4, d->big) : 0;
    return 1;
}

size_t pm_block_spans(const struct pm_dump *d, uint64_t lo[8], uint64_t hi[8])
{
    if (!d->found)
        return 0;
    int coded = d->flags & HD_FLAG_CODED;
    uint64_t w = d->ptr, c = d->live_cap;
    const uint64_t at[8] = {d->at, d->a_addr, d->a_size, d->a_stack, d->a_birth, d->a_interval,
                            d->a_stacks, d->a_frames};
    const uint64_t len[8] = {HD_HEADER + 7u * w, c * w, c * (coded ? 1u : w), c * 4u, c * 4u,
                             c * (coded ? 1u : 4u), (uint64_t)d->stack_cap * HD_STACK_ENTRY,
                             (uint64_t)d->frame_cap * w};
    size_t n = 0;
    for (size_t i = 0; i < 8; i++)
        if (at[i] && len[i] && at[i] + len[i] > at[i]) {
            lo[n] = at[i];
            hi[n++] = at[i] + len[i];
        }
    return n;
}

/* A header at p (n bytes available) that could be the block's: magic in either order, then a
 * known version, pointer size and capacities; 1 also when the header is cut by the chunk's end. */
static int plausible(const uint8_t *p, size_t n)
{
    int big = rd(p, 4, 0) == HD_MAGIC ? 0 : rd(p, 4, 1) == HD_MAGIC ? 1 : -1;
    if (big < 0)
        return 0;
    if (n < HD_HEADER)
        return 1;
    uint64_t version = rd(p + 4, 2, big), ptr = rd(p + 6, 2, big), live = rd(p + 8, 4, big),
             ways = rd(p + 12, 4, big);
    return (version == 3 || version == 4) && (ptr == 4 || ptr == 8) && is_pow2(live) &&
           live <= HD_MAX_LIVE && is_pow2(ways) && ways <= live;
}

void pm_magic_feed(struct pm_magic_scan *m, const uint8_t *p, size_t n)
{
    if (m->seen || n == 0)
        return;
    /* The last three bytes of the previous chunk and the first three of this one: a magic cut by
     * the chunk boundary counts alone. */
    uint8_t join[6];
    size_t k = m->ntail, t = n < 3 ? n : 3;
    memcpy(join, m->tail, k);
    memcpy(join + k, p, t);
    for (size_t i = 0; i + 4 <= k + t && i < k; i++)
        if (plausible(join + i, 4))
            m->seen = 1;
    for (const uint8_t *q = p, *end = p + n; !m->seen && q + 4 <= end; q++) {
        const uint8_t *mq = memchr(q, 'M', (size_t)(end - q)); /* in "MSHD" and "DHSM" */
        if (!mq)
            break;
        q = mq;
        const uint8_t *h = q + 4 <= end && !memcmp(q, "MSHD", 4) ? q
                           : q >= p + 3 && q + 1 <= end && !memcmp(q - 3, "DHSM", 4) ? q - 3
                                                                                        : NULL;
        if (h && plausible(h, (size_t)(end - h)))
            m->seen = 1;
    }
    if (n >= 3) {
        memcpy(m->tail, p + n - 3, 3);
        m->ntail = 3;
    } else {
        size_t keep = k + n > 3 ? 3 - n : k;
        memmove(m->tail, m->tail + (k - keep), keep);
        memcpy(m->tail + keep, p, n);
        m->ntail = keep + n;
    }
}
