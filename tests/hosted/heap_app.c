/* Heap health hosted (tests/hosted/heap.sh): a program whose glibc heap ends with free chunks
 * (kept blocks between freed ones), which writes glibc's own mallinfo2 figures at its exit to
 * argv[1] ("free=F total=T free_blocks=B"), with no allocation after them (the file through
 * open/write, the text on the stack): msamp's last HEAP record (msamp_end, from the library's
 * destructor) reads the same heap. */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4000

static void *kept[N];

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    static void *gone[N];
    for (int i = 0; i < N; i++) {
        gone[i] = malloc(200 + (size_t)(i % 7) * 64); /* holes once freed */
        kept[i] = malloc(48 + (size_t)(i % 5) * 16);  /* between them */
        if (gone[i] == NULL || kept[i] == NULL)
            return 1;
        memset(kept[i], i & 0xff, 48);
    }
    for (int i = 0; i < N; i++)
        free(gone[i]);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    struct mallinfo2 m = mallinfo2();
    char text[160];
    int n = snprintf(text, sizeof(text), "free=%zu total=%zu free_blocks=%zu\n", m.fordblks,
                     m.arena + m.hblkhd, m.ordblks + m.smblks);
    if (n <= 0 || write(fd, text, (size_t)n) != n || close(fd) != 0)
        return 1;
    return 0; /* kept[] stays in use */
}
