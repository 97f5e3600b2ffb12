#include "views/flame.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void views_xml_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
        }
    }
}

/* One frame of the merged call tree: a function (or an unsymbolized address) under its parent,
 * frames of one name merged as flamegraph.pl does. Node 0 is the root ("all"); parents come
 * before their children. */
struct fnode {
    uint32_t parent, depth;
    int64_t name, file, line; /* string indexes in the profile; name -1: address (file: its
                                 location's id); line -1: the merged frames are at several lines */
    uint64_t addr;
    double value, x; /* bytes; x: bytes left of it at its depth */
};

struct ftree {
    const struct prof *p;
    struct fnode *n;
    size_t len, cap;
    struct iset index; /* (parent, name, line, addr) -> node */
};

struct fkey {
    const struct ftree *t;
    struct fnode k;
};

static uint64_t fkey_hash(const struct fnode *k)
{
    uint64_t h = hash_u64(k->parent);
    h = hash_u64(h ^ (uint64_t)k->name);
    return hash_u64(h ^ k->addr);
}

static int fkey_eq(const void *ctx, uint32_t i)
{
    const struct fkey *q = ctx;
    const struct fnode *a = &q->t->n[i];
    return a->parent == q->k.parent && a->name == q->k.name && a->addr == q->k.addr;
}

static uint32_t child(struct ftree *t, uint32_t parent, int64_t name, int64_t file, int64_t line,
                      uint64_t addr)
{
    struct fkey q = {t, {parent, 0, name, file, line, addr, 0, 0}};
    uint64_t h = fkey_hash(&q.k);
    uint32_t i = iset_find(&t->index, h, fkey_eq, &q);
    if (i != UINT32_MAX) {
        if (t->n[i].line != line)
            t->n[i].line = -1;
        return i;
    }
    GROW(t->n, t->cap, t->len + 1);
    q.k.depth = t->n[parent].depth + 1;
    t->n[t->len] = q.k;
    iset_add(&t->index, h, (uint32_t)t->len);
    return (uint32_t)t->len++;
}

static const struct ftree *sort_t;

static void label(const struct ftree *t, const struct fnode *n, char *out, size_t len)
{
    if (n == &t->n[0])
        snprintf(out, len, "all");
    else if (n->name < 0)
        snprintf(out, len, "%s",
                 prof_addr_text(t->p, &t->p->location[n->file - 1], (char[PROF_ADDR_TEXT]){0},
                                NULL));
    else
        snprintf(out, len, "%s", t->p->str[n->name]);
}

/* Siblings in name order, as flamegraph.pl sorts its stacks. */
static int by_parent_name(const void *a, const void *b)
{
    const struct fnode *x = &sort_t->n[*(const uint32_t *)a], *y = &sort_t->n[*(const uint32_t *)b];
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    char lx[512], ly[512];
    label(sort_t, x, lx, sizeof(lx));
    label(sort_t, y, ly, sizeof(ly));
    int c = strcmp(lx, ly);
    if (c)
        return c;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Widest first; ties: the earliest made (parents before their children). */
static int by_width(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    double x = sort_t->n[i].value, y = sort_t->n[j].value;
    return x > y ? -1 : x < y ? 1 : i < j ? -1 : i > j;
}

/* The tree of b's samples (value vi), identical stacks merged. */
static void build_tree(struct ftree *t, const struct prof *p, int vi)
{
    memset(t, 0, sizeof(*t));
    t->p = p;
    GROW(t->n, t->cap, 1);
    t->n[0] = (struct fnode){0, 0, -1, 0, 0, 0, 0, 0};
    t->len = 1;
    for (size_t i = 0; i < p->nsample; i++) {
        const struct prof_sample *s = &p->sample[i];
        int64_t v = p->valpool[s->val_off + vi];
        if (v <= 0)
            continue;
        uint32_t cur = 0;
        t->n[0].value += (double)v;
        for (uint32_t k = s->nloc; k-- > 0;) { /* root first */
            const struct prof_location *l = &p->location[p->locpool[s->loc_off + k] - 1];
            if (l->nline == 0) {
                cur = child(t, cur, -1, (int64_t)p->locpool[s->loc_off + k], 0, l->address);
                t->n[cur].value += (double)v;
            }
            for (uint32_t j = l->nline; j-- > 0;) {
                const struct prof_line *ln = &p->linepool[l->line_off + j];
                const struct prof_function *f = &p->function[ln->function_id - 1];
                cur = child(t, cur, f->name, f->filename, ln->line, 0);
                t->n[cur].value += (double)v;
            }
        }
    }
}

/* Colour of a name: flamegraph.pl's "hot" palette, from a hash of the name. */
static void colour(const char *name, char *out, size_t n)
{
    uint64_t h = hash_bytes(name, strlen(name), 0x9e3779b97f4a7c15ull);
    unsigned r = 205 + (unsigned)(h % 51), g = (unsigned)((h >> 8) % 231),
             b = (unsigned)((h >> 16) % 56);
    snprintf(out, n, "rgb(%u,%u,%u)", r, g, b);
}

static const char flame_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "var W = FW, L = 10, frames, total, zoomed = null, searching = null;\n"
    "function A(g, k) { return g.getAttribute(k); }\n"
    "function R(g) { return g.getElementsByTagName('rect')[0]; }\n"
    "function fit(g) {\n"
    "  var r = R(g), t = g.getElementsByTagName('text')[0], w = +A(r, 'width');\n"
    "  var n = A(g, 'data-n'), c = Math.floor((w - 6) / 7);\n"
    "  t.setAttribute('x', +A(r, 'x') + 3);\n"
    "  t.textContent = c < 3 ? '' : n.length <= c ? n : n.substring(0, c - 2) + '..';\n"
    "}\n"
    "function place(g, x, w) { var r = R(g); r.setAttribute('x', x.toFixed(2));\n"
    "  r.setAttribute('width', w.toFixed(2)); fit(g); }\n"
    "function cls(g, c, on) { g.classList.toggle(c, on); }\n"
    "function zoom(z) {\n"
    "  var zx = +A(z, 'data-x'), zw = +A(z, 'data-w'), zd = +A(z, 'data-d'), k = (W - 2 * L) / zw;\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var g = frames[i], x = +A(g, 'data-x'), w = +A(g, 'data-w'), d = +A(g, 'data-d');\n"
    "    var inside = x >= zx - 1e-6 && x + w <= zx + zw + 1e-6;\n"
    "    var above = d < zd && x <= zx + 1e-6 && x + w >= zx + zw - 1e-6;\n"
    "    cls(g, 'hide', !(above || (d >= zd && inside)));\n"
    "    cls(g, 'parent', above);\n"
    "    if (above) place(g, L, W - 2 * L);\n"
    "    else if (d >= zd && inside) place(g, L + (x - zx) * k, w * k);\n"
    "  }\n"
    "  zoomed = z; cls(document.getElementById('unzoom'), 'hide', false);\n"
    "  if (searching !== null) search(searching);\n"
    "}\n"
    "function unzoom() {\n"
    "  for (var i = 0; i < frames.length; i++) { var g = frames[i];\n"
    "    cls(g, 'hide', false); cls(g, 'parent', false);\n"
    "    place(g, L + +A(g, 'data-x'), +A(g, 'data-w')); }\n"
    "  zoomed = null; cls(document.getElementById('unzoom'), 'hide', true);\n"
    "}\n"
    "function search(term) {\n"
    "  var re; try { re = new RegExp(term); } catch (e) { return; }\n"
    "  searching = term; var spans = [];\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var g = frames[i], r = R(g), m = re.test(A(g, 'data-n'));\n"
    "    cls(g, 'match', m); r.setAttribute('fill', m ? 'rgb(230,0,230)' : A(g, 'data-fill'));\n"
    "    if (m) spans.push([+A(g, 'data-x'), +A(g, 'data-w'), +A(g, 'data-v')]);\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
    "  var end = -1, bytes = 0;\n"
    "  for (var j = 0; j < spans.length; j++)\n"
    "    if (spans[j][0] >= end - 1e-6) { bytes += spans[j][2]; end = spans[j][0] + spans[j][1]; }\n"
    "  var t = document.getElementById('matched');\n"
    "  t.textContent = 'Matched: ' + (total > 0 ? 100 * bytes / total : 0).toFixed(1) + '%';\n"
    "  t.setAttribute('data-bytes', bytes);\n"
    "  cls(document.getElementById('reset-search'), 'hide', false);\n"
    "}\n"
    "function reset_search() {\n"
    "  for (var i = 0; i < frames.length; i++) { var g = frames[i]; cls(g, 'match', false);\n"
    "    R(g).setAttribute('fill', A(g, 'data-fill')); }\n"
    "  searching = null; document.getElementById('matched').textContent = '';\n"
    "  cls(document.getElementById('reset-search'), 'hide', true);\n"
    "}\n"
    "function prompt_search() {\n"
    "  var t = window.prompt('Search (regular expression):', searching || '');\n"
    "  if (t) search(t);\n"
    "}\n"
    "function init() {\n"
    "  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "  total = +A(document.documentElement, 'data-total');\n"
    "  var det = document.getElementById('details');\n"
    "  frames.forEach(function (g) {\n"
    "    fit(g);\n"
    "    g.addEventListener('click', function () { zoom(g); });\n"
    "    g.addEventListener('mouseover', function () {\n"
    "      det.textContent = g.getElementsByTagName('title')[0].textContent; });\n"
    "    g.addEventListener('mouseout', function () { det.textContent = ' '; });\n"
    "  });\n"
    "  document.getElementById('unzoom').addEventListener('click', unzoom);\n"
    "  document.getElementById('search').addEventListener('click', prompt_search);\n"
    "  document.getElementById('reset-search').addEventListener('click', reset_search);\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault();\n"
    "      prompt_search(); }\n"
    "    if (e.keyCode === 27) { reset_search(); unzoom(); } });\n"
    "  var h = location.hash.substring(1).split('&');\n"
    "  for (var i = 0; i < h.length; i++) {\n"
    "    var eq = h[i].indexOf('='), k = h[i].substring(0, eq);\n"
    "    var v = decodeURIComponent(h[i].substring(eq + 1));\n"
    "    if (eq < 0 || v === '') continue;\n"
    "    if (k === 'zoom') {\n"
    "      var best = null;\n"
    "      frames.forEach(function (g) { if (A(g, 'data-n') === v &&\n"
    "        (!best || +A(g, 'data-w') > +A(best, 'data-w'))) best = g; });\n"
    "      if (best) zoom(best);\n"
    "    }\n"
    "    if (k === 'search') search(v);\n"
    "  }\n"
    "}\n"
    "window.addEventListener('load', init);\n"
    "]]></script>\n";

/* Geometry (px): a frame's height, the room above the frames (title) and below them (details). */
#define FLAME_FH 16.0
#define FLAME_TOP 60.0
#define FLAME_BOTTOM 40.0
#define FLAME_PLOT_W (FLAME_WIDTH - 20.0)

/* What is drawn of a tree: draw[i] for node i (drawn of them), the frames not drawn (hidden_n,
 * hidden_b bytes in their drawn callers' width), the deepest drawn, the graph's height. */
struct flame_layout {
    uint8_t *draw;
    size_t drawn, hidden_n;
    double total, hidden_b, height;
    uint32_t maxd;
};

/* Frames drawn: those at least FLAME_MIN_PX wide; beyond FLAME_MAX_DRAWN of them, the widest
 * (ties: the earliest made). A parent is as wide as its children and made before them, so the
 * frames drawn are a tree. order: room for t->len nodes. */
static void choose_frames(const struct ftree *t, struct flame_layout *lay, uint32_t *order)
{
    double thr = lay->total * FLAME_MIN_PX / FLAME_PLOT_W;
    lay->draw = xcalloc(t->len, 1);
    lay->drawn = 0;
    for (size_t i = 0; i < t->len; i++)
        if (t->n[i].value >= thr && t->n[i].value > 0)
            order[lay->drawn++] = (uint32_t)i;
    if (lay->drawn > FLAME_MAX_DRAWN) {
        sort_t = t;
        qsort(order, lay->drawn, sizeof(*order), by_width);
        lay->drawn = FLAME_MAX_DRAWN;
    }
    for (size_t i = 0; i < lay->drawn; i++)
        lay->draw[order[i]] = 1;
    lay->maxd = 0;
    lay->hidden_b = 0;
    lay->hidden_n = 0;
    for (size_t i = 1; i < t->len; i++) {
        const struct fnode *n = &t->n[i];
        if (lay->draw[i] && n->depth > lay->maxd)
            lay->maxd = n->depth;
        if (!lay->draw[i]) {
            lay->hidden_n++;
            if (lay->draw[n->parent])
                lay->hidden_b += n->value;
        }
    }
    lay->height = FLAME_TOP + (lay->maxd + 1) * FLAME_FH + FLAME_BOTTOM;
}

/* x of each node: its parent's, plus its earlier siblings' values (name order). order: room for
 * t->len nodes. */
static void place_frames(struct ftree *t, uint32_t *order)
{
    for (size_t i = 1; i < t->len; i++)
        order[i - 1] = (uint32_t)i;
    sort_t = t;
    qsort(order, t->len - 1, sizeof(*order), by_parent_name);
    for (size_t i = 0; i + 1 < t->len;) {
        uint32_t parent = t->n[order[i]].parent;
        double x = t->n[parent].x;
        for (; i + 1 < t->len && t->n[order[i]].parent == parent; i++) {
            t->n[order[i]].x = x;
            x += t->n[order[i]].value;
        }
    }
}

/* The SVG's start: its style and script, the title, subtitle, buttons and the details line. */
static void flame_head(FILE *f, const struct session *s, const struct flame_layout *lay,
                       const char *what)
{
    double height = lay->height, total = lay->total;
    fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
               "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
               "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-total=\"%.0f\">\n"
               "<style type=\"text/css\">\n"
               "text{font-family:'DejaVu Sans Mono',monospace;font-size:12px;fill:#000}\n"
               "g.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}\n"
               "g.f text{pointer-events:none;font-size:11px}\n"
               ".hide{display:none}\ng.parent{opacity:0.5}\n"
               ".button{cursor:pointer;fill:#444}\n#title{font-size:17px;font-family:"
               "'DejaVu Sans',sans-serif}\n</style>\n",
            FLAME_WIDTH, height, FLAME_WIDTH, height, total);
    char fw[16];
    snprintf(fw, sizeof(fw), "%d", FLAME_WIDTH);
    const char *mark = strstr(flame_script, "FW");
    fwrite(flame_script, 1, (size_t)(mark - flame_script), f);
    fputs(fw, f);
    fputs(mark + 2, f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f4f4f0\"/>\n",
            FLAME_WIDTH, height);
    fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">Flame graph: %s, "
               "session %d (%.0f bytes)</text>\n",
            FLAME_WIDTH / 2, what, s->index, total);
    fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"42\" text-anchor=\"middle\">%zu frames drawn",
            FLAME_WIDTH / 2, lay->drawn ? lay->drawn - 1 : 0);
    if (lay->hidden_n)
        fprintf(f, "; %zu not drawn, narrower than %.2g px or beyond the %d widest (%.0f bytes, "
                   "in their callers' width)",
                lay->hidden_n, FLAME_MIN_PX, FLAME_MAX_DRAWN, lay->hidden_b);
    fprintf(f, "</text>\n<text id=\"unzoom\" class=\"button hide\" x=\"10\" y=\"24\">Reset Zoom"
               "</text>\n<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" "
               "text-anchor=\"end\">Search</text>\n<text id=\"reset-search\" class=\"button "
               "hide\" x=\"%d\" y=\"42\" text-anchor=\"end\">Reset Search</text>\n"
               "<text id=\"details\" x=\"10\" y=\"%.0f\"> </text>\n<text id=\"matched\" "
               "x=\"%d\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
            FLAME_WIDTH - 10, FLAME_WIDTH - 10, height - 14, FLAME_WIDTH - 10, height - 14);
    if (total <= 0)
        fprintf(f, "<text id=\"empty\" x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">no %s in "
                   "this profile</text>\n",
                FLAME_WIDTH / 2, FLAME_TOP + FLAME_FH, what);
}

/* One frame: its group (name, place and value for the script), title, rectangle and label. */
static void flame_frame(FILE *f, const struct ftree *t, const struct fnode *n,
                        const struct flame_layout *lay)
{
    const struct prof *p = t->p;
    double total = lay->total;
    char name[512], fill[32];
    label(t, n, name, sizeof(name));
    colour(name, fill, sizeof(fill));
    double x = n->x / total * FLAME_PLOT_W, w = n->value / total * FLAME_PLOT_W;
    double y = lay->height - FLAME_BOTTOM - (n->depth + 1) * FLAME_FH;
    fprintf(f, "<g class=\"f\" data-n=\"");
    views_xml_text(f, name, strlen(name));
    fprintf(f, "\" data-x=\"%.4f\" data-w=\"%.4f\" data-d=\"%u\" data-v=\"%.0f\" "
               "data-fill=\"%s\"><title>",
            x, w, n->depth, n->value, fill);
    views_xml_text(f, name, strlen(name));
    if (n->name >= 0 && n->file && n->line >= 0)
        fprintf(f, " (%s:%lld)", base_name(p->str[n->file]), (long long)n->line);
    else if (n->name >= 0 && n->file)
        fprintf(f, " (%s, several lines)", base_name(p->str[n->file]));
    fprintf(f, ": %.0f bytes, %.2f%%</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
               "height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">"
               "</text></g>\n",
            n->value, 100 * n->value / total, 10 + x, y, w, FLAME_FH - 1, fill, 13 + x,
            y + FLAME_FH - 5);
}

int flame_write(const struct built *b, const struct session *s, int alloc, const char *path,
                char *err, size_t errlen)
{
    struct ftree t;
    build_tree(&t, &b->prof, alloc ? V_ALLOC_B : V_INUSE_B);
    struct flame_layout lay = {.total = t.n[0].value};
    uint32_t *order = xmalloc(t.len * sizeof(*order));
    choose_frames(&t, &lay, order);
    place_frames(&t, order);
    free(order);
    const char *what = alloc ? "allocated bytes" : "in-use bytes";
    struct out_file o;
    int rc = out_open(&o, path, err, errlen);
    if (rc == 0) {
        flame_head(o.f, s, &lay, what);
        for (size_t i = 0; lay.total > 0 && i < t.len; i++)
            if (lay.draw[i])
                flame_frame(o.f, &t, &t.n[i], &lay);
        fprintf(o.f, "</svg>\n");
        rc = out_close(&o, 0, err, errlen);
    }
    free(lay.draw);
    free(t.n);
    iset_free(&t.index);
    return rc;
}
