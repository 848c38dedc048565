"""The functions the task YAML files name (`!function hooks.…`): lm-eval imports this file by its path, so it names
them absolutely."""

from codebench.integrations.lm_eval import docs, process_results

__all__ = ["docs", "process_results"]
