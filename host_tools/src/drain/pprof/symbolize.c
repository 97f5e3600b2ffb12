#include "pprof/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msamp_wire.h"
#include "util.h"

struct sym_elf {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Elf *elf;
    GElf_Addr bias;
    char *path;
    uint8_t build_id[MSAMP_WIRE_MAX_BUILD_ID];
    size_t build_id_len;
    /* Demangled names, by the address of the mangled name (a string of the ELF's, stable until
     * sym_close): an index into demangled (whose entry is NULL when the name did not demangle). */
    struct umap demangled_of;
    char **demangled;
    size_t ndemangled, demangled_cap;
};

/* The C++ ABI's demangler (libstdc++'s, extern "C" in <cxxabi.h>, a C++ header): a malloc'd
 * string, status 0 on success. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* A C++ linkage name (Itanium ABI, _Z...) as source spells it, e.g. _ZN2ns4workEi as
 * ns::work(int); any other name as it is. Valid until sym_close. */
static const char *demangle(struct sym_elf *e, const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return name;
    uint64_t key = (uint64_t)(uintptr_t)name;
    uint32_t i = umap_get(&e->demangled_of, key);
    if (i == UINT32_MAX) {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (status == -1 && d == NULL)
            drain_oom();
        if (status != 0) {
            free(d);
            d = NULL;
        }
        grow((void **)&e->demangled, &e->demangled_cap, e->ndemangled + 1, sizeof(*e->demangled));
        i = (uint32_t)e->ndemangled++;
        e->demangled[i] = d;
        umap_put(&e->demangled_of, key, i);
    }
    return e->demangled[i] ? e->demangled[i] : name;
}

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

struct sym_elf *sym_open(const char *path, char *err, size_t errlen)
{
    /* Symbols come from the given file (or its local .debug): never from a debuginfod server. */
    unsetenv("DEBUGINFOD_URLS");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char ident[EI_NIDENT];
    ssize_t n = pread(fd, ident, sizeof(ident), 0);
    if (n != (ssize_t)sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        close(fd);
        return NULL;
    }
    struct sym_elf *e = xcalloc(1, sizeof(*e));
    e->path = xstrndup(path, strlen(path));
    e->dwfl = dwfl_begin(&offline_callbacks);
    if (!e->dwfl) {
        snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
        close(fd);
        sym_close(e);
        return NULL;
    }
    /* dwfl takes ownership of fd. */
    e->mod = dwfl_report_offline(e->dwfl, path, path, fd);
    if (!e->mod || dwfl_report_end(e->dwfl, NULL, NULL) != 0) {
        snprintf(err, errlen, "%s: cannot read ELF: %s", path, dwfl_errmsg(-1));
        sym_close(e);
        return NULL;
    }
    e->elf = dwfl_module_getelf(e->mod, &e->bias);
    GElf_Ehdr eh;
    if (!e->elf || !gelf_getehdr(e->elf, &eh)) {
        snprintf(err, errlen, "%s: cannot read ELF header: %s", path, dwfl_errmsg(-1));
        sym_close(e);
        return NULL;
    }
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(e->mod, &bits, &vaddr);
    if (len > 0 && (size_t)len <= sizeof(e->build_id)) {
        memcpy(e->build_id, bits, (size_t)len);
        e->build_id_len = (size_t)len;
    }
    return e;
}

void sym_close(struct sym_elf *e)
{
    if (!e)
        return;
    if (e->dwfl)
        dwfl_end(e->dwfl);
    for (size_t i = 0; i < e->ndemangled; i++)
        free(e->demangled[i]);
    free(e->demangled);
    umap_free(&e->demangled_of);
    free(e->path);
    free(e);
}

/* The libraries opened by sym_library, by path: an ELF, or NULL when it could not be used (kept
 * so that a missing library is looked for once). */
static struct lib_entry {
    char *path;
    uint8_t build_id[MSAMP_WIRE_MAX_BUILD_ID];
    size_t build_id_len;
    struct sym_elf *elf;
} *libs;
static size_t nlibs, caplibs;

struct sym_elf *sym_library(const char *path, const uint8_t *build_id, size_t build_id_len)
{
    for (size_t i = 0; i < nlibs; i++)
        if (strcmp(libs[i].path, path) == 0 && libs[i].build_id_len == build_id_len &&
            memcmp(libs[i].build_id, build_id, build_id_len) == 0)
            return libs[i].elf;
    if (nlibs >= SYM_MAX_LIBRARIES)
        return NULL; /* a hostile stream's endless paths: memory stays bounded */
    char err[512];
    struct stat st;
    /* The path comes from the stream: only a regular file is opened (a FIFO or a device named
     * there could block or never end). */
    struct sym_elf *e = path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode)
                            ? sym_open(path, err, sizeof(err))
                            : NULL;
    size_t blen = 0;
    const uint8_t *bid = e ? sym_build_id(e, &blen) : NULL;
    /* Another build at that path now (an upgraded library): its symbols would be wrong. A mapping
     * that names no build-id (a core dump's file note: drain --core) is taken by its path. */
    if (e && build_id_len != 0 && (blen != build_id_len || memcmp(bid, build_id, blen) != 0)) {
        sym_close(e);
        e = NULL;
    }
    grow((void **)&libs, &caplibs, nlibs + 1, sizeof(*libs));
    struct lib_entry *l = &libs[nlibs++];
    l->path = xstrndup(path, strlen(path));
    l->build_id_len = build_id_len > sizeof(l->build_id) ? sizeof(l->build_id) : build_id_len;
    memcpy(l->build_id, build_id, l->build_id_len);
    l->elf = e;
    return e;
}

void sym_library_close_all(void)
{
    for (size_t i = 0; i < nlibs; i++) {
        sym_close(libs[i].elf);
        free(libs[i].path);
    }
    free(libs);
    libs = NULL;
    nlibs = caplibs = 0;
}

const char *sym_path(const struct sym_elf *e)
{
    return e->path;
}

const uint8_t *sym_build_id(const struct sym_elf *e, size_t *len)
{
    *len = e->build_id_len;
    return e->build_id;
}

uint64_t sym_runtime_to_vaddr(const struct sym_elf *e, uint64_t addr, uint64_t start,
                              uint64_t offset)
{
    size_t nph = 0;
    if (elf_getphdrnum(e->elf, &nph) == 0) {
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
                continue;
            uint64_t page_off = ph.p_offset & ~(uint64_t)0xfff;
            if (offset >= page_off && offset < ph.p_offset + ph.p_filesz)
                return addr - start + offset + (ph.p_vaddr - ph.p_offset);
        }
    }
    return addr - start + offset;
}

static const char *die_name(Dwarf_Die *die)
{
    const char *n = dwarf_diename(die);
    return n ? n : "??";
}

static const char *die_linkage_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        return dwarf_formstring(&a);
    return NULL;
}

/* A function's name: its demangled linkage name (C++: qualified, with its parameter types), else
 * its DWARF name; its system name: the linkage name as the ELF has it. */
static void fill_function(struct sym_elf *e, struct sym_frame *f, Dwarf_Die *die)
{
    const char *ln = die_linkage_name(die);
    f->name = ln ? demangle(e, ln) : die_name(die);
    if (f->name == ln)
        f->name = die_name(die);
    f->system_name = ln ? ln : f->name;
    const char *df = dwarf_decl_file(die);
    if (df)
        f->file = df;
    int dl = 0;
    if (dwarf_decl_line(die, &dl) == 0)
        f->start_line = dl;
}

/* The compile unit holding a. libdw 0.188 answers from .debug_aranges, which clang emits only for
 * assembly units: it then finds no unit, or returns an assembly unit that does not hold a. So
 * check its answer, and otherwise walk the units and ask each for its ranges. */
static Dwarf_Die *find_cu(struct sym_elf *e, Dwarf_Addr a, Dwarf_Addr *bias, Dwarf_Die *store)
{
    Dwarf_Die *cu = dwfl_module_addrdie(e->mod, a, bias);
    if (cu && dwarf_haspc(cu, a - *bias) > 0)
        return cu;
    cu = NULL;
    while ((cu = dwfl_module_nextcu(e->mod, cu, bias)) != NULL) {
        if (dwarf_haspc(cu, a - *bias) > 0) {
            *store = *cu;
            return store;
        }
    }
    return NULL;
}

/* ARM and AArch64 mapping symbols ($a, $t, $x, $d and $x.N) mark code and data, not functions:
 * the name of code without debug information is the nearest other symbol at or below it. */
static const char *nearest_real_symbol(struct sym_elf *e, Dwarf_Addr a)
{
    int count = dwfl_module_getsymtab(e->mod);
    const char *best = NULL;
    GElf_Addr best_addr = 0;
    for (int i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(e->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || name[0] == '$' || name[0] == '\0' || addr > a || addr < best_addr)
            continue;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_NOTYPE)
            continue;
        best = name;
        best_addr = addr;
    }
    return best;
}

int sym_lookup(struct sym_elf *e, uint64_t vaddr, struct sym_frame *out, int max)
{
    Dwarf_Addr a = vaddr + e->bias;
    const char *file = NULL;
    int line = 0, n = 0;
    Dwarf_Addr cubias = 0;
    Dwarf_Die custore;
    Dwarf_Die *cudie = find_cu(e, a, &cubias, &custore);
    Dwfl_Line *l = dwfl_module_getsrc(e->mod, a);
    if (l) {
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    } else if (cudie) {
        Dwarf_Line *dl = dwarf_getsrc_die(cudie, a - cubias);
        if (dl) {
            file = dwarf_linesrc(dl, NULL, NULL);
            dwarf_lineno(dl, &line);
        }
    }
    if (cudie) {
        Dwarf_Die *scopes = NULL, *chain = NULL;
        int ns = dwarf_getscopes(cudie, a - cubias, &scopes), nc = 0;
        /* dwarf_getscopes continues an inlined scope with its abstract definition's parents;
         * the physical chain of the innermost function scope gives the callers it was inlined
         * into, up to the concrete subprogram. */
        for (int i = 0; i < ns; i++) {
            int tag = dwarf_tag(&scopes[i]);
            if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
                nc = dwarf_getscopes_die(&scopes[i], &chain);
                break;
            }
        }
        Dwarf_Files *files = NULL;
        size_t nfiles = 0;
        if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
            files = NULL;
        for (int i = 0; i < nc && n < max; i++) {
            int tag = dwarf_tag(&chain[i]);
            if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
                continue;
            struct sym_frame *f = &out[n++];
            memset(f, 0, sizeof(*f));
            f->file = file;
            fill_function(e, f, &chain[i]);
            f->line = line;
            if (tag == DW_TAG_subprogram)
                break;
            /* The caller's position is this inlined call's call site. */
            Dwarf_Attribute at;
            Dwarf_Word v;
            file = NULL;
            line = 0;
            if (files && dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &at), &v) == 0)
                file = dwarf_filesrc(files, v, NULL, NULL);
            if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &at), &v) == 0)
                line = (int)v;
        }
        free(chain);
        free(scopes);
    }
    if (n == 0 && max > 0) {
        GElf_Off off;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(e->mod, a, &off, &sym, NULL, NULL, NULL);
        if (name && name[0] == '$')
            name = nearest_real_symbol(e, a);
        if (!name)
            return 0;
        out[0] = (struct sym_frame){demangle(e, name), name, file, line, 0};
        n = 1;
    }
    return n;
}
