"""Adapters to the tools researchers already run, each behind its own extra and imported only when asked for. Each
poses codebench's instruction-mode prompts and scores replies with the puzzles' validators, through the functions
`codebench run` uses (no prompt or scoring logic of their own).

- `inspect_tasks`: an inspect_ai task per puzzle, `inspect eval codebench/hanoi --model openai/...`; needs the `inspect`
  extra (`pip install 'codebench-puzzles[inspect]'`).
- `lm_eval` and its task folder `lm_eval_tasks/`: an lm-evaluation-harness task per puzzle (`codebench_hanoi`, the group
  `codebench`), `lm_eval --include_path $(python -m codebench.integrations.lm_eval) ...`; needs the `lmeval` extra.
- `reasoning_gym`: importing it registers the nine puzzle families as reasoning-gym datasets
  (`create_dataset("codebench_sudoku", level=..., size=..., seed=...)`); needs the `gym` extra.
- `_planning` and `_scoring`, shared by the inspect and lm-eval adapters: the planned requests of a puzzle, and a reply
  scored for its instance.
"""
