# CREATE EXTENSION pymem: copy the extension's files (extension/, generated from
# migrations/ and sql/ by `python -m pymem.extension --out extension`; a test keeps
# them current) where the server looks for extensions. No Python needed here.
# docs/operations.md, "Install".
PG_CONFIG ?= pg_config
EXTDIR = $(shell $(PG_CONFIG) --sharedir)/extension

.PHONY: install uninstall

install:
	install -d $(DESTDIR)$(EXTDIR)
	install -m 644 extension/pymem.control extension/pymem--*.sql $(DESTDIR)$(EXTDIR)/

uninstall:
	rm -f $(DESTDIR)$(EXTDIR)/pymem.control $(DESTDIR)$(EXTDIR)/pymem--*.sql
