"""Serving language models as KServe ``LLMInferenceService``s: the stack file's ``serving`` section."""
