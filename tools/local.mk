# tools/: build-time generators (run on the build machine).
noinst_PROGRAMS += tools/embed
tools_embed_SOURCES = tools/embed.c
# Carries a patch made against the single backend/emit.c over to the split
# emitter files (see its first lines).
dist_noinst_SCRIPTS += tools/emit_split_patch.py
# Writes runtime/units.mk (RT_UNITS) from runtime/units.def (runtime/local.mk).
dist_noinst_SCRIPTS += tools/units_mk.sh
# Writes the build's runtime/rt_unit_protos.h (runtime/local.mk).
dist_noinst_SCRIPTS += tools/unit_protos.sh
