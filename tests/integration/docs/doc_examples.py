#!/usr/bin/python3
"""The code blocks of README.md and docs/*.md, checked so that none can rot unnoticed (docs/doc-examples.md says
how to write them):

  check        every fenced block names its language; a block after `<!-- file: PATH -->` is exactly
               the file PATH of the tree; every shell block (sh, bash) is run by `run` or says
               `illustrative` in its info string (```sh illustrative).
  run BUILD    runs every shell block and every Python block (```python, with BUILD/python on
               PYTHONPATH and Debian's /usr/bin/python3) that is not illustrative, one at a time, each in a scratch
               directory that looks like the source tree with BUILD as ./build, HOME a fresh directory
               and RUNTIME=sandbox, inside private network, mount and pid namespaces (a block may
               listen on a fixed port, and nothing it leaves running outlives it). A block passes when
               it exits 0 within its time and its output holds each text its `# → TEXT` lines name.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from markdown_it import MarkdownIt

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
PYTHON_LANGUAGES = {"python"}
RUNNABLE_LANGUAGES = SHELL_LANGUAGES | PYTHON_LANGUAGES
# A Python block runs as a shell block that hands it to the interpreter the package is built for. Under a
# sanitizer build the package's extension needs the sanitizer's runtime preloaded (AH_DOC_PYTHON_PRELOAD).
PYTHON_RUNNER = 'LD_PRELOAD="${AH_DOC_PYTHON_PRELOAD:-}" PYTHONPATH="$PWD/build/python" /usr/bin/python3 -c "$AH_DOC_PYTHON"\n'
EXPECT = re.compile(r"^\s*# → (.+?)\s*$")
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->\s*$")
BLOCK_SECONDS = 45


class Block:
    def __init__(self, doc, line, info, content, file_mark):
        self.doc, self.line, self.content, self.file_mark = doc, line, content, file_mark
        words = info.split()
        self.language = words[0] if words else ""
        self.illustrative = "illustrative" in words[1:]

    @property
    def where(self):
        return f"{self.doc}:{self.line}"


def documents(root):
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    return [d for d in docs if os.path.isfile(os.path.join(root, d))]


def blocks_of(root, doc):
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        tokens = MarkdownIt("commonmark").parse(f.read())
    out = []
    for i, tok in enumerate(tokens):
        if tok.type not in ("fence", "code_block"):
            continue
        prev = tokens[i - 1] if i > 0 else None
        mark = None
        if prev is not None and prev.type == "html_block" and "file:" in prev.content:
            m = FILE_MARK.match(prev.content.strip().splitlines()[-1])
            mark = m.group(1) if m else "(unreadable mark: " + prev.content.strip() + ")"
        # An indented code block has no info string: it counts as one without a language.
        info = tok.info.strip() if tok.type == "fence" else ""
        out.append(Block(doc, tok.map[0] + 1, info, tok.content, mark))
    return out


def all_blocks(root):
    return [b for d in documents(root) for b in blocks_of(root, d)]


def check(root):
    problems = []
    for b in all_blocks(root):
        if not b.language:
            problems.append(f"{b.where}: a code block without a language (```sh, ```text, ```json ...)")
        if b.file_mark:
            path = os.path.join(root, b.file_mark)
            if not os.path.isfile(path):
                problems.append(f"{b.where}: names {b.file_mark}, which does not exist")
            else:
                with open(path, encoding="utf-8") as f:
                    if f.read() != b.content:
                        problems.append(f"{b.where}: differs from {b.file_mark} (copy the file into the block)")
        if b.language == "console":
            problems.append(f"{b.where}: ```console: write ```sh with the output as `# → TEXT` lines")
        if b.language in ("py", "python3"):
            problems.append(f"{b.where}: ```{b.language}: write ```python (the language the runner knows)")
    for p in problems:
        print(p)
    runnable = [b for b in all_blocks(root) if b.language in RUNNABLE_LANGUAGES and not b.illustrative]
    print(f"{len(all_blocks(root))} code blocks; {len(runnable)} shell and Python blocks are run by `run`")
    return 1 if problems else 0


def scratch_tree(root, build, work):
    """A directory whose entries are the source tree's, with `build` the build directory under test."""
    tree = os.path.join(work, "tree")
    os.makedirs(tree)
    for entry in os.listdir(root):
        if entry == ".git" or entry.startswith("build"):
            continue
        os.symlink(os.path.join(root, entry), os.path.join(tree, entry))
    os.symlink(os.path.abspath(build), os.path.join(tree, "build"))
    return tree


# Run inside fresh namespaces: `lo` up for a block's own servers; the block's shell is pid 1 of its pid
# namespace, so whatever it left running is ended by the kernel when it exits, after the block's
# background jobs were asked to stop (SIGTERM) and awaited, as a user would end them.
WRAPPER = r"""
ip link set lo up
trap 'jobs=$(jobs -p); [ -n "$jobs" ] && kill $jobs 2>/dev/null; wait' EXIT
set -euo pipefail
eval "$AH_DOC_BLOCK"
"""


def run_block(block, tree, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACTIONHOST_", "SANDBOX_", "SESSION_API_KEY", "XDG_"))}
    script = block.content
    if block.language in PYTHON_LANGUAGES:
        env["AH_DOC_PYTHON"] = block.content
        script = PYTHON_RUNNER
    env.update(HOME=home, RUNTIME="sandbox", AH_DOC_BLOCK=script, NO_COLOR="1",
               PATH=os.path.join(tree, "build", "bin") + ":" + env.get("PATH", "/usr/bin:/bin"))
    ns = ["unshare", "--net", "--mount", "--pid", "--fork", "--mount-proc"]
    if os.geteuid() != 0:
        ns.insert(1, "--map-root-user")
    start = time.monotonic()
    proc = subprocess.Popen(ns + ["bash", "-c", WRAPPER], cwd=tree, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=BLOCK_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the session this test started for the block
        output, _ = proc.communicate()
        return False, f"did not finish within {BLOCK_SECONDS} s", output.decode(errors="replace"), time.monotonic() - start
    text = output.decode(errors="replace")
    if proc.returncode != 0:
        return False, f"exited {proc.returncode}", text, time.monotonic() - start
    for line in block.content.splitlines():
        m = EXPECT.match(line)
        if m and m.group(1) not in text:
            return False, f"output lacks {m.group(1)!r}", text, time.monotonic() - start
    return True, "", text, time.monotonic() - start


def run(root, build):
    failures = 0
    total = time.monotonic()
    for block in all_blocks(root):
        if block.language not in RUNNABLE_LANGUAGES or block.illustrative:
            continue
        work = tempfile.mkdtemp(prefix="ah-doc-example.")
        try:
            tree = scratch_tree(root, build, work)
            home = os.path.join(work, "home")
            os.makedirs(home)
            ok, why, output, seconds = run_block(block, tree, home)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"{'ok  ' if ok else 'FAIL'} {block.where} ({seconds:.1f} s){': ' + why if why else ''}")
        if not ok:
            failures += 1
            print("  | " + "\n  | ".join(block.content.rstrip().splitlines()))
            print("  output:\n    " + "\n    ".join(output.rstrip().splitlines()[-40:]))
    print(f"{failures} failed; {time.monotonic() - total:.1f} s in all")
    return failures


SELFTEST_README = """# t
```
unlabelled
```

    indented, so unlabelled too

<!-- file: shown.txt -->
```text
not what the file holds
```

```sh
false
```

```sh
echo printed
# → never printed
```

```sh
echo fine
# → fine
```

```sh illustrative
exit 3
```

```python
print("from python")
# → from python
```

```python
raise SystemExit(4)
```
"""


def selftest():
    """The checks fail where they must: on a tree made of exactly the mistakes they exist for."""
    root = tempfile.mkdtemp(prefix="ah-doc-selftest.")
    try:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
            f.write(SELFTEST_README)
        with open(os.path.join(root, "shown.txt"), "w", encoding="utf-8") as f:
            f.write("what the file holds\n")
        build = os.path.join(root, "build-none")
        os.makedirs(os.path.join(build, "bin"))
        problems = [b for b in all_blocks(root) if not b.language or b.file_mark]
        assert check(root) == 1 and len(problems) == 3, "check must name the 2 unlabelled blocks and the differing one"
        ran = run(root, build)
        assert ran == 3, (f"run must fail `false`, the missing output and the failing Python block, pass `fine` "
                          f"and the printing Python block, skip the illustrative one ({ran})")
        print("selftest: the checks catch every kind of mistake they are for")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    if len(sys.argv) == 2 and sys.argv[1] == "check":
        sys.exit(check(root))
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        sys.exit(1 if run(root, sys.argv[2]) else 0)
    if len(sys.argv) == 2 and sys.argv[1] == "selftest":
        sys.exit(selftest())
    sys.exit("usage: doc_examples.py check | run BUILD_DIR | selftest")
