"""How the models in models/ are made and judged: training, export, evaluation, the bench against the
peer detector. It may import every other package; nothing at read time imports it."""
