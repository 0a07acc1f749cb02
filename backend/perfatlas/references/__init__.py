"""Reference runs: published figures (a paper's or a wiki's table) entered by hand with their
source, stored as runs marked `reference`, shown beside measured runs, never detected on."""
