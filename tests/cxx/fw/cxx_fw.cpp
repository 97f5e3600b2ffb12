// The C++ firmware of tests/cxx (ports-cxx-firmware): the sites of cxx_sites.h on QEMU's Cortex-M3
// board, every allocation recorded (interval 1, pinned), the stream on the UART. Then two requests
// the heap cannot meet (std::bad_alloc from libstdc++'s operator new[], caught; NULL from the
// nothrow one) and two the giant guard refuses (msamp throws std::bad_alloc; NULL), then a site
// that must still be sampled. The truth (cxx_sites.h's lines, each after "truth ") and msamp's
// counters go to the board console; "cxx-fw done" ends a run that went through.
#include "cxx_sites.h"
#include "fw_heap.h"

// board_api.h is C, whose _Noreturn is C11's.
#define _Noreturn __attribute__((noreturn))
extern "C" {
#include "board_api.h"
#include "msamp.h"
}
#undef _Noreturn

void *volatile cxxsites::sink;

static void emit(const char *line)
{
    board_console("truth ");
    board_console(line);
}

static void tick()
{
    if (msamp_poll() < 0) {
        board_console("cxx-fw: msamp_poll failed\n");
        board_exit(1);
    }
}

static void fail(const char *what)
{
    board_console("cxx-fw: ");
    board_console(what);
    board_console("\n");
    board_exit(1);
}

static void counter(const char *name, uint32_t v)
{
    char line[48], d[12];
    int n = 0, k = 0;
    for (const char *s = name; *s && n < 32; s++)
        line[n++] = *s;
    line[n++] = '=';
    do
        d[k++] = char('0' + v % 10);
    while ((v /= 10) != 0);
    while (k > 0)
        line[n++] = d[--k];
    line[n++] = ' ';
    line[n] = '\0';
    board_console(line);
}

int main()
{
    board_init();
    msamp_config cfg{};
    cfg.interval = 1;
    cfg.pin_interval = 1;
    cfg.seed = 7;
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    cxxsites::run_sites(emit, 60, 10, tick);
    // Larger than the heap, below the guard: the allocator fails it.
    if (cxxsites::fail_both(emit, FW_HEAP_BYTES + 128u * 1024u, 0, false) != 0)
        fail("a request larger than the heap was met");
    tick();
    // At the guard: refused before the allocator sees it.
    if (cxxsites::fail_both(emit, MSAMP_CFG_GIANT_BYTES, 1, true) != 0)
        fail("a request at the giant guard was met");
    tick();
    cxxsites::run_after(emit, 60, 10);
    if (msamp_flush() < 0)
        fail("msamp_flush");
    msamp_stats st;
    msamp_get_stats(&st);
    board_console("cxx-fw stats: ");
    counter("samples", st.samples);
    counter("frees", st.frees);
    counter("failed", st.failed);
    counter("refused", st.refused);
    counter("ring_records", st.ring_records);
    counter("live_full", st.live_full);
    counter("stack_full", st.stack_full);
    counter("reentrant", st.reentrant);
    counter("truncated", st.truncated);
    counter("no_frame", st.no_frame);
    board_console("\ncxx-fw done\n");
    return 0;
}
