/* The post-mortem reader's first stage (postmortem.h): the dump's memory, from --ram images
 * (mapped read-only) and an ELF core's PT_LOAD segments, the files a process's core had mapped
 * (its NT_FILE note), and what the firmware's ELF (--elf) says of the block: its symbol, byte
 * order, pointer size, load segments and build-id note. postmortem_find.c then looks in it. */
#include "input/postmortem.h"
#include "input/postmortem_dump.h"

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
#include "util.h"

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
    uint64_t count = pm_rd(p, w, big), page = pm_rd(p + w, w, big);
    if (count == 0 || count > (n - 2u * w) / (3u * w) || page == 0 || (page & (page - 1u)))
        return;
    const uint8_t *name = p + 2u * w + count * 3u * w, *end = p + n;
    for (uint64_t i = 0; i < count && d->nfiles < MAX_FILES && name < end; i++) {
        const uint8_t *z = memchr(name, 0, (size_t)(end - name));
        if (!z)
            break;
        const uint8_t *t = p + 2u * w + i * 3u * w;
        uint64_t start = pm_rd(t, w, big), stop = pm_rd(t + w, w, big),
                 off = pm_rd(t + 2u * w, w, big);
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
        uint64_t namesz = pm_rd(p + o, 4, big), descsz = pm_rd(p + o + 4, 4, big),
                 type = pm_rd(p + o + 8, 4, big);
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
const uint8_t *pm_mem(const struct pm_dump *d, uint64_t a, uint64_t n)
{
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *r = &d->r[i];
        if (a >= r->base && a - r->base <= r->size && n <= r->size - (a - r->base))
            return r->p + (a - r->base);
    }
    return NULL;
}
