-- pymem 0018: one more piece of evidence for a duplicate by embedding (issue
-- 19): one statement says everything the other says and adds a detail
-- ("唐宁在乐队弹贝斯" / "唐宁在一个乐队里弹贝斯"), filled by pymem._evidence from
-- pymem._term_difference and read by pymem._decision (sql/20_upsert.sql).
-- pymem._term_difference gains an OUT parameter: sql/00_text.sql drops its
-- earlier form just before making it, in the load's one transaction.
-- depends: 0017.cross-kind-review

ALTER TYPE pymem.pair_evidence
-- the content terms of one text are all in the other, which has more, and
-- neither is a question: an added term changes one side, a substituted one both
ADD ATTRIBUTE added_detail boolean;

UPDATE pymem.schema_info SET version = 18;
