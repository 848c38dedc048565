"""Writes one file beyond the file-size limit (EFBIG; SIGXFSZ is ignored)."""


def solve(instance):
    chunk = b"x" * (1 << 20)
    with open("/tmp/work/big", "wb") as handle:
        while True:
            handle.write(chunk)
