/* Loaded images and build-ids for hosted Linux (MAPPING records, SESSION build-id). */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hosted.h"

#define MAX_MAPS 64
#define MAX_BUILD_ID 64

struct image {
    uintptr_t start, limit, offset;
    const char *path;
    uint8_t build_id[MAX_BUILD_ID];
    uint8_t build_id_len;
};

uintptr_t msamp_hosted_text_lo, msamp_hosted_text_hi;
static struct image images[MAX_MAPS];
static size_t image_count;
static char exe_path[4096];

/* The NT_GNU_BUILD_ID note of a loaded object, copied into img. Notes are 4-byte aligned words
 * (8-byte aligned in PT_NOTE segments whose p_align is 8). */
static void find_build_id(const struct dl_phdr_info *info, struct image *img)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t align = ph->p_align == 8 ? 8 : 4;
        const uint8_t *p, *end;

        if (ph->p_type != PT_NOTE)
            continue;
        p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) nh;
            size_t name_sz, desc_sz;

            memcpy(&nh, p, sizeof nh);
            name_sz = ((size_t)nh.n_namesz + align - 1) & ~(align - 1);
            desc_sz = ((size_t)nh.n_descsz + align - 1) & ~(align - 1);
            p += sizeof nh;
            if (name_sz > (size_t)(end - p) || desc_sz > (size_t)(end - p - name_sz))
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(p, "GNU", 4) == 0 &&
                nh.n_descsz > 0 && nh.n_descsz <= MAX_BUILD_ID) {
                memcpy(img->build_id, p + name_sz, nh.n_descsz);
                img->build_id_len = (uint8_t)nh.n_descsz;
                return;
            }
            p += name_sz + desc_sz;
        }
    }
}

/* One entry per executable PT_LOAD segment of each object with a file: pprof's mappings. The
 * executable comes first (dl_iterate_phdr reports it first, with an empty name). */
static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    int first = *(int *)data;
    const char *path = first ? exe_path : info->dlpi_name;
    struct image proto = {0};

    (void)size;
    *(int *)data = 0;
    if (path == NULL || path[0] != '/')
        return 0; /* the vDSO and anything else without a file */
    find_build_id(info, &proto);
    proto.path = path;
    for (int i = 0; i < info->dlpi_phnum && image_count < MAX_MAPS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        struct image *img;

        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0)
            continue;
        img = &images[image_count++];
        *img = proto;
        img->start = info->dlpi_addr + ph->p_vaddr;
        img->limit = img->start + ph->p_memsz;
        img->offset = ph->p_offset;
    }
    return image_count < MAX_MAPS ? 0 : 1;
}

void msamp_hosted_maps_refresh(void)
{
    int first = 1;

    if (exe_path[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
        exe_path[n > 0 ? n : 0] = '\0';
    }
    image_count = 0;
    dl_iterate_phdr(add_object, &first);
    if (msamp_hosted_text_hi == 0 && image_count > 0 && images[0].path == exe_path) {
        msamp_hosted_text_lo = images[0].start;
        msamp_hosted_text_hi = images[0].limit;
    }
}

size_t msamp_port_mappings(struct msamp_mapping *out, size_t max)
{
    size_t n = image_count < max ? image_count : max;

    for (size_t i = 0; i < n; i++) {
        out[i].start = images[i].start;
        out[i].limit = images[i].limit;
        out[i].offset = images[i].offset;
        out[i].build_id = images[i].build_id;
        out[i].build_id_len = images[i].build_id_len;
        out[i].path = images[i].path;
    }
    return n;
}

size_t msamp_port_build_id(const uint8_t **id)
{
    /* images[0] is the executable when it has a file (always, but for a deleted one). */
    if (image_count == 0 || images[0].path != exe_path || images[0].build_id_len == 0)
        return 0;
    *id = images[0].build_id;
    return images[0].build_id_len;
}
