"""lm-evaluation-harness's task folder for codebench (`--include_path`): the YAML files and `hooks`, which lm-eval
loads by its path (see `codebench.integrations.lm_eval`)."""
