-- pymem 0034: a marker. This release changes functions only (sql/): the grammar of
-- stated times and of questions about now and before reads traditional characters as
-- the simplified ones it is written in (pymem._simplified_han): "到下個月底" held a
-- month too short and "現在" did not ask about the present; and a state's end said as
-- a day of this week alone ("this Sunday", 这周四), "all weekend", "for the week", "the
-- next few days" or a month ("until March", 到三月底) is read.
-- yoyo runs post-apply.py, which loads sql/, only when a migration applies: without a
-- marker, a store upgraded with plain `yoyo apply` would keep the old functions
-- (`pymem migrate` loads sql/ on every run).
-- depends: 0033.plain-recall-statement

UPDATE pymem.schema_info SET version = 34;
