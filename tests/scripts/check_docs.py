#!/usr/bin/env python3
"""README.md and docs/*.md say what they show: every memsim command runs, every relative link resolves.

    check_docs.py SOURCE_DIR MEMSIM WORK_DIR [--with-plots]

Commands: each line of a fenced code block that starts with `memsim ` or `$ memsim ` (a command followed by
its output; a trailing `# comment` dropped) runs
with MEMSIM in place of `memsim`, in WORK_DIR, under a timeout, and must exit 0 with output. `--plot`
commands run only with --with-plots (matplotlib present). Commands that cannot run here are listed in SKIP
with the reason; an entry no document shows any more is an error too, so the list cannot rot.

Links: every [text](target) and ![alt](target) outside code blocks whose target is not a URL must name an
existing file or folder relative to the document; a `#fragment` into a Markdown file must name one of its
headings (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens).

Standard library only. Exit 1 and one line per failure.
"""
import os
import re
import shlex
import subprocess
import sys
import time

# Commands shown in the documents that this test does not run, with the reason.
SKIP = {
    "memsim [--kernel NAME] [--matrix WxH] [--block BXxBY] [--device NAME] [--format F] [options]":
        "a synopsis, not a command",
    "memsim [launch options] --plot KIND --plot-out FILE [--plot-site S] [--plot-instruction N]":
        "a synopsis, not a command",
}
TIMEOUT_S = 60  # a command; the sanitized build (scripts/test.sh) runs several times slower
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"`[^`]*`")


def documents(root):
    docs = [os.path.join(root, "README.md")]
    folder = os.path.join(root, "docs")
    docs += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".md"))
    return docs


def split_blocks(text):
    """(lines inside code blocks, lines outside), each as (line number, line)."""
    inside, outside, fenced = [], [], False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        (inside if fenced else outside).append((n, line))
    return inside, outside


def strip_comment(line):
    """Drops a shell comment: a # at the start of a word, outside quotes."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        _, outside = split_blocks(f.read())
    seen, out = {}, set()
    for _, line in outside:
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else "%s-%d" % (base, k))
    return out


def check_links(root, doc, outside, failures):
    rel = os.path.relpath(doc, root)
    for n, line in outside:
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(dest):
                failures.append("%s:%d: link %s: no such file %s" % (rel, n, target, os.path.relpath(dest, root)))
            elif fragment and dest.endswith(".md") and fragment not in anchors(dest):
                failures.append("%s:%d: link %s: %s has no heading #%s" %
                                (rel, n, target, os.path.relpath(dest, root), fragment))


def check_commands(root, doc, inside, memsim, work, with_plots, shown, failures):
    rel = os.path.relpath(doc, root)
    ran = 0
    for n, line in inside:
        command = strip_comment(line.strip())
        if command.startswith("$ "):
            command = command[2:].lstrip()
        if not command.startswith("memsim "):
            continue
        shown.add(command)
        if command in SKIP:
            continue
        args = shlex.split(command)
        # A kernel file a doc names is the source tree's (examples/): the commands run elsewhere.
        args = [os.path.join(root, a) if i and args[i - 1] == "--kernel-file" else a for i, a in enumerate(args)]
        if "--plot" in args and not with_plots:
            continue
        start = time.monotonic()
        try:
            p = subprocess.run([memsim] + args[1:], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            failures.append("%s:%d: `%s` ran past %d s" % (rel, n, command, TIMEOUT_S))
            continue
        ran += 1
        took = time.monotonic() - start
        if p.returncode != 0:
            err = p.stderr.decode(errors="replace").strip().splitlines()
            failures.append("%s:%d: `%s` exited %d: %s" % (rel, n, command, p.returncode, err[-1] if err else ""))
        elif not p.stdout and "--plot-out" not in args:
            failures.append("%s:%d: `%s` printed nothing" % (rel, n, command))
        else:
            print("ok %5.2f s  %s:%d  %s" % (took, rel, n, command))
    return ran


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--with-plots"):
        sys.stderr.write("usage: check_docs.py SOURCE_DIR MEMSIM WORK_DIR [--with-plots]\n")
        return 2
    root, memsim, work = (os.path.abspath(a) for a in argv[1:4])
    with_plots = len(argv) == 5
    os.makedirs(work, exist_ok=True)
    failures, shown, ran = [], set(), 0
    for doc in documents(root):
        with open(doc, encoding="utf-8") as f:
            inside, outside = split_blocks(f.read())
        check_links(root, doc, outside, failures)
        ran += check_commands(root, doc, inside, memsim, work, with_plots, shown, failures)
    for command in sorted(set(SKIP) - shown):
        failures.append("SKIP lists `%s`, which no document shows any more" % command)
    if ran == 0:
        failures.append("no memsim command found in README.md or docs/*.md")
    for f in failures:
        print(f)
    print("%d commands run, %d failures" % (ran, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
