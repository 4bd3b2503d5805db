-- pymem 0019: an index of each user's hot live memories, the rows recall
-- reads unless asked for cold ones (issue 21). Its predicate holds every
-- filter of recall's scan that memories_live_idx does not, so the rows it
-- finds are read no further than their vectors: the tier and everything after
-- the vector cost about 0.3 us a row to reach. One key, so its entries for a
-- user are in heap order, and a plain index scan reads the pages in order
-- without a bitmap. The price: one more index on every write, and a change of
-- tier (decay cooling a memory, a mention reviving it) is no longer a HOT
-- update. Touches, which leave the tier as it is, still are.
-- depends: 0018.added-detail

CREATE INDEX memories_hot_idx ON pymem.memories (user_id)
WHERE consolidated_into IS NULL AND deleted_at IS NULL AND tier = 'hot';

UPDATE pymem.schema_info SET version = 19;
