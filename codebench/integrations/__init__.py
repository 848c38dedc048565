"""Adapters to the tools researchers already run: each poses codebench's instruction-mode prompts, on the instances
`codebench run --mode instruction` plans, and scores the replies with the puzzles' validators, through the functions
`codebench run` uses (no prompt or scoring logic of their own).

- `inspect_tasks`: an inspect_ai task per puzzle, `inspect eval codebench/hanoi --model openai/...`; needs the `inspect`
  extra (`pip install 'codebench-puzzles[inspect]'`).
- `lm_eval` and its task folder `lm_eval_tasks/`: an lm-evaluation-harness task per puzzle (`codebench_hanoi`, the group
  `codebench`), `lm_eval --include_path $(python -m codebench.integrations.lm_eval) ...`; needs the `lmeval` extra.
- `_planning` and `_scoring`, shared by them: the planned requests of a puzzle, and a reply scored for its instance.
"""
