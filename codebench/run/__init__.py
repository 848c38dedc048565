"""Runs: the spec (`spec`), the plan (`plan`), the pipeline that walks every sample through its mode's stages
with scheduling and resume (`pipeline`), the run database (`store`), and regression checks of one program (`check`)."""
