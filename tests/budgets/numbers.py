#!/usr/bin/env python3
"""The README's Numbers table, made from `make budgets`' measures (docs/PERFORMANCE.md#the-readmes-numbers).

Usage:
  tests/budgets/numbers.py check README MEASURED [PREFIX...]
  tests/budgets/numbers.py write README MEASURED
  tests/budgets/numbers.py edit README MEASURED OUT [PREFIX...]

tests/budgets/numbers.tsv holds the table's rows: figure, result, target (tab-separated; '#' lines
and blank lines are comments). A result or target names measures of MEASURED (build/budgets/
measured.tsv, "measure<TAB>value" lines) between braces:
  {M}             the value as measured (judged exactly)
  {M:FMT}         the value by Python's format FMT (.1f, .0f, +.2f...), judged to one unit of its
                  last digit: a figure of 6.5 stands for 6.4 to 6.6
  {M/D:FMT}       the value divided by D (1e6, 1e9...) first
  {M:FMT~P%}      judged to P % of the measure where that is more than one unit of its last digit:
                  for a measure that moves a little from run to run (how records pack into frames
                  follows the flush times; peak memory)
  {met M<=X,...}  "met" when every listed measure is at most X, "**not met**" otherwise
The table sits in README between the lines "<!-- numbers: begin ... -->" and "<!-- numbers: end -->",
one row per line of numbers.tsv, with a last column naming the `make budgets` part that measures it.

check: judges README's table against MEASURED, only the measures whose name starts with one of
  PREFIX (all when none is given; the others are not measured in that run, and not judged): exits 1,
  one line per figure, when a figure differs from its measure by more than its rounding, a measure
  is missing, or a row is not numbers.tsv's.
write: rewrites README's table from MEASURED (a figure whose measure MEASURED lacks keeps README's).
edit: writes OUT, a copy of README with its first judged figure moved by ten units of its rounding
  (or of its tolerance) (the hand edit make test-budgets shows check failing on).
"""
import os
import re
import sys

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numbers.tsv")
BEGIN = "<!-- numbers: begin"
END = "<!-- numbers: end -->"
PARTS = [("size.", "size"), ("hosted.", "hosted"), ("demo.", "demo"), ("wrapper.", "wrappers"),
         ("ports.", "ports"), ("drain.", "drain")]
FIELD = re.compile(r"\{([^{}]+)\}")
NUMBER = r"([-+]?[0-9]+(?:\.[0-9]+)?)"
MET = ("met", "**not met**")


def die(msg):
    print("numbers: " + msg, file=sys.stderr)
    sys.exit(2)


def load_spec():
    rows = []
    with open(SPEC, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 3:
                die("%s:%d: %d fields, want 3 (figure, result, target)" % (SPEC, n, len(cells)))
            rows.append(cells)
    return rows


def load_measured(path):
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if len(cells) >= 2 and re.fullmatch(r"[0-9]+(\.[0-9]+)?", cells[1]):
                values[cells[0]] = cells[1]
    return values


class Field:
    """One {...} of a template: a figure of a measure, or a met / not met verdict."""

    def __init__(self, text):
        self.text = text
        if text.startswith("met "):
            self.kind = "met"
            self.limits = []
            for cond in text[4:].split(","):
                m, sep, x = cond.strip().partition("<=")
                if not sep:
                    die("bad verdict {%s}: want {met MEASURE<=X,...}" % text)
                self.limits.append((m.strip(), float(x)))
            self.measures = [m for m, _ in self.limits]
            return
        self.kind = "figure"
        name, _, fmt = text.partition(":")
        name, _, div = name.partition("/")
        fmt, _, pct = fmt.partition("~")
        if pct and not re.fullmatch(r"[0-9]+(\.[0-9]+)?%", pct):
            die("bad tolerance {%s}: want ~P%%" % text)
        self.pct = float(pct[:-1]) if pct else 0.0
        self.measure, self.div, self.fmt = name.strip(), float(div) if div else 1.0, fmt
        self.measures = [self.measure]
        if fmt:
            d = re.fullmatch(r"\+?\.([0-9])f", fmt)
            if not d:
                die("bad format {%s}: want .Nf or +.Nf" % text)
            self.step = 10.0 ** -int(d.group(1))
        else:
            self.step = 0.0

    def regex(self):
        return "(met|\\*\\*not met\\*\\*)" if self.kind == "met" else NUMBER

    def render(self, values):
        if self.kind == "met":
            return MET[0] if all(float(values[m]) <= x for m, x in self.limits) else MET[1]
        if not self.fmt:
            return values[self.measure]
        return format(float(values[self.measure]) / self.div, self.fmt)

    def judge(self, shown, values):
        """None when README's text `shown` is right for the measures, else why not."""
        if self.kind == "met":
            want = self.render(values)
            return None if shown == want else "says '%s', the measures make it '%s' (%s)" % (
                shown, want, ", ".join("%s = %s" % (m, values[m]) for m in self.measures))
        v = float(values[self.measure]) / self.div
        tol = max(self.step, abs(v) * self.pct / 100)
        if abs(float(shown) - v) <= tol * (1 + 1e-9) + 1e-12:
            return None
        return "shows %s, measured %s (%s = %s; rounding %s)" % (
            shown, self.render(values), self.measure, values[self.measure],
            "exact" if not tol else "%g" % self.step + (" or %g %%" % self.pct if self.pct else ""))


class Template:
    def __init__(self, text):
        self.text = text
        self.fields = [Field(t) for t in FIELD.findall(text)]
        parts = FIELD.split(text)
        self.pattern = re.compile("".join(
            re.escape(p) if i % 2 == 0 else self.fields[i // 2].regex() for i, p in enumerate(parts)) + r"\Z")

    def render(self, values, shown=None):
        out, k = [], 0
        for i, p in enumerate(FIELD.split(self.text)):
            if i % 2 == 0:
                out.append(p)
                continue
            f = self.fields[k]
            if all(m in values for m in f.measures):
                out.append(f.render(values))
            elif shown is not None:
                out.append(shown[k])
            else:
                return None
            k += 1
        return "".join(out)


def part_of(measures):
    parts = []
    for m in measures:
        p = next((part for pre, part in PARTS if m.startswith(pre)), None)
        if p is None:
            die("measure %s is of no part of make budgets" % m)
        if p not in parts:
            parts.append(p)
    return ", ".join(parts)


def spec_rows():
    rows = []
    for figure, result, target in load_spec():
        r, t = Template(result), Template(target)
        measures = [m for f in r.fields + t.fields for m in f.measures]
        rows.append((figure, r, t, part_of(measures)))
    return rows


def split_row(line):
    if not (line.startswith("|") and line.endswith("|")):
        return None
    return [c.strip() for c in line[1:-1].split("|")]


def read_table(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        b = next(i for i, l in enumerate(lines) if l.startswith(BEGIN))
        e = next(i for i, l in enumerate(lines) if i > b and l == END)
    except StopIteration:
        die("%s has no table between '%s ...' and '%s'" % (path, BEGIN, END))
    return lines, b, e


def table_lines(rows, cells):
    out = ["| figure | result | target | `make budgets` part |", "|---|---|---|---|"]
    for (figure, _, _, part), (res, tgt) in zip(rows, cells):
        out.append("| %s | %s | %s | %s |" % (figure, res, tgt, part))
    return out


def readme_cells(rows, lines, b, e, problems):
    """README's (result, target) texts and their figures per spec row (None where unusable)."""
    body = [split_row(l) for l in lines[b + 1:e] if l.strip()][2:]
    out = []
    for i, (figure, r, t, _) in enumerate(rows):
        got = body[i] if i < len(body) else None
        if got is None or len(got) != 4 or got[0] != figure:
            problems.append("row %d should be '%s' (tests/budgets/numbers.tsv), README has %s" % (
                i + 1, figure, "'%s'" % got[0] if got else "no such row"))
            out.append(None)
            continue
        mr, mt = r.pattern.match(got[1]), t.pattern.match(got[2])
        if not mr or not mt:
            problems.append("'%s': '%s' is not of the form '%s'" % (
                figure, got[1] if not mr else got[2], r.text if not mr else t.text))
            out.append(None)
            continue
        out.append((mr.groups(), mt.groups()))
    if len(body) > len(rows):
        problems.append("%d rows more than tests/budgets/numbers.tsv's (every figure comes from a measure)"
                        % (len(body) - len(rows)))
    return out


def wanted(m, prefixes):
    return not prefixes or any(m.startswith(p) for p in prefixes)


def check(readme, measured, prefixes):
    rows, values = spec_rows(), load_measured(measured)
    lines, b, e = read_table(readme)
    problems = []
    shown = readme_cells(rows, lines, b, e, problems)
    judged = 0
    for (figure, r, t, _), got in zip(rows, shown):
        if got is None:
            continue
        for tmpl, texts in ((r, got[0]), (t, got[1])):
            for f, s in zip(tmpl.fields, texts):
                ms = [m for m in f.measures if wanted(m, prefixes)]
                if not ms:
                    continue
                lost = [m for m in ms if m not in values]
                if lost:
                    problems.append("'%s': %s not measured" % (figure, ", ".join(lost)))
                    continue
                if len(ms) < len(f.measures):
                    continue
                judged += 1
                why = f.judge(s, values)
                if why:
                    problems.append("'%s' %s" % (figure, why))
    for p in problems:
        print("README Numbers: " + p)
    if problems:
        print("README Numbers: %d problem(s) in %s's table: `make readme-numbers` writes it from %s" % (
            len(problems), readme, measured))
        return 1
    print("README Numbers: %d figures of %s as measured" % (judged, readme))
    return 0


def replace_table(readme, lines, b, e, new):
    tmp = readme + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:b + 1] + [""] + new + [""] + lines[e:]))
    os.replace(tmp, readme)


def write(readme, measured):
    rows, values = spec_rows(), load_measured(measured)
    lines, b, e = read_table(readme)
    problems = []
    shown = readme_cells(rows, lines, b, e, problems)
    cells = []
    for (figure, r, t, _), got in zip(rows, shown):
        res = r.render(values, got[0] if got else None)
        tgt = t.render(values, got[1] if got else None)
        if res is None or tgt is None:
            die("'%s': its measures are not in %s and README has no figure to keep (make budgets first)"
                % (figure, measured))
        cells.append((res, tgt))
    replace_table(readme, lines, b, e, table_lines(rows, cells))
    print("README Numbers: %d rows written from %s" % (len(rows), measured))
    return 0


def edit(readme, measured, out, prefixes):
    rows, values = spec_rows(), load_measured(measured)
    lines, b, e = read_table(readme)
    shown = readme_cells(rows, lines, b, e, [])
    for i, ((figure, r, t, _), got) in enumerate(zip(rows, shown)):
        if got is None:
            continue
        for k, f in enumerate(r.fields):
            if f.kind == "figure" and f.measure in values and wanted(f.measure, prefixes):
                texts = list(got[0])
                old = texts[k]
                step = max(f.step or 1.0, float(old) * f.pct / 100)
                texts[k] = format(float(old) + 10 * step, f.fmt) if f.fmt else str(int(float(old) + 10))
                row = next(j for j in range(b + 1, e) if (split_row(lines[j]) or [None])[0] == figure)
                c = split_row(lines[row])
                lines[row] = "| %s | %s | %s | %s |" % (c[0], r.render({}, texts), c[2], c[3])
                with open(out, "w", encoding="utf-8") as dst:
                    dst.write("\n".join(lines))
                print("'%s': %s made %s by hand" % (figure, old, texts[k]))
                return 0
    die("no figure of %s is judged in this run" % readme)


def main(argv):
    if len(argv) >= 3 and argv[0] == "check":
        return check(argv[1], argv[2], argv[3:])
    if len(argv) == 3 and argv[0] == "write":
        return write(argv[1], argv[2])
    if len(argv) >= 4 and argv[0] == "edit":
        return edit(argv[1], argv[2], argv[3], argv[4:])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
