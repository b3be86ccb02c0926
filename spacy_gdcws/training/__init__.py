"""Training helpers: the learning-curve logger, the Noam schedule and
pseudo-word augmentation."""
