# tools/: build-time generators (run on the build machine).
noinst_PROGRAMS += tools/embed
tools_embed_SOURCES = tools/embed.c
# Carries a patch made against the single backend/emit.c over to the split
# emitter files (see its first lines).
dist_noinst_SCRIPTS += tools/emit_split_patch.py
