"""Request and response models: `…Create`/`…Update` in (limits on every field), `…Public` out."""
