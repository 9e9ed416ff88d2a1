"""Distillation (seed 000 §6): collect → extract → link → reconcile → project."""
