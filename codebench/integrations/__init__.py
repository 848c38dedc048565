"""Bridges to the stacks researchers already use, each behind its own extra and imported only when asked for:
`codebench.integrations.reasoning_gym` (the `gym` extra) registers the nine puzzle families as reasoning-gym datasets.
"""
