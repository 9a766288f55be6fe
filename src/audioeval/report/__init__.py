"""JSON summaries, tables, HTML report."""
