"""memsim's JSON report for one configuration, for the validation scripts (instruction_diagnostic.py,
l1_wavefronts.py): one place that spells the command line."""
import json
import subprocess


def memsim_json(binary, kernel, dtype, block, matrix, extra=(), env=None):
    """`memsim --format json` for kernel, dtype, block and matrix ("WxH" strings), extra options appended."""
    args = [binary, "--format", "json", "--kernel", kernel, "--dtype", dtype, "--block", block, "--matrix", matrix]
    args += list(extra)
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout)
