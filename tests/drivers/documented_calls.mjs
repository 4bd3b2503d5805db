// The documented SQL calls (docs/sql-api.md, README.md) from node-pg with its
// default binding: every parameter a bare $n, no cast, sent untyped (OID 0) as
// text, so the server resolves each function from the parameters' positions
// and names alone. Run by tests/test_drivers.py on a fresh clone of the test
// store (connection from the PG* environment); prints one JSON report:
//   {"steps": [{name, sql, types, expect, ok, sqlstate, message, where, rows}]}
// `types` are the parameter types the server must infer (the test checks
// them with the ParameterDescription pgx encodes by); `expect` a SQLSTATE the
// call must raise instead of succeeding. One process and one connection for
// every call. node-pg sends a JS array as a PostgreSQL array literal and an
// object as JSON, so JSON arrays go as JSON.stringify(...), as its docs advise.
import pg from "pg";

const client = new pg.Client();
const steps = [];

async function call(name, sql, params, types, expect = null) {
  const step = { name, sql, types, expect };
  try {
    const result = await client.query(sql, params);
    Object.assign(step, { ok: true, rows: result.rows });
  } catch (err) {
    Object.assign(step, {
      ok: false, sqlstate: err.code ?? null, message: err.message, where: err.where ?? null,
    });
  }
  steps.push(step);
  return step.rows ?? [];
}

const one = async (...args) => (await call(...args))[0] ?? {};

await client.connect();
try {
  const { embedding_dimensions: dim } = await one(
    "get_settings", "SELECT * FROM pymem.get_settings()", [], []);
  // a unit vector along `axis`, turned towards `other` to cosine `cos` (pgvector's text form)
  const vec = (axis, cos = 1, other = axis + 1) => {
    const v = new Array(dim).fill(0);
    v[axis] = cos;
    v[other % dim] = Math.sqrt(Math.max(0, 1 - cos * cos));
    return `[${v.join(",")}]`;
  };
  const bands = { dedup_threshold: 0.95, supersede_threshold: 0.7 };
  const T = "text", F = "double precision", I = "integer", B = "boolean";
  const J = "jsonb", V = "vector", U = "uuid", TS = "timestamp with time zone";

  // --- administration
  await call("schema_version", "SELECT pymem.schema_version()", [], []);
  await call("configure_embedder",
    "SELECT (pymem.configure_embedder($1, $2, $3)).embedding_model",
    ["node-pg-test", 0.92, 0.75], [T, F, F]);
  await call("configure_embedder, options by name",
    "SELECT (pymem.configure_embedder($1, $2, $3, topic_supersede_threshold => $4,"
    + " overwrite => $5)).embedding_model",
    ["node-pg-test", 0.92, 0.75, 0.5, true], [T, F, F, F, B]);
  await call("store_partitions", "SELECT pymem.store_partitions()", [], []);
  await call("partition_by_user, out of range", "SELECT * FROM pymem.partition_by_user($1)",
    [1], [I], "PM006");
  await call("set_config (Security)", "SELECT set_config('pymem.user_id', $1, true)",
    ["ann"], [T]);

  // --- write path
  const tea = await one("upsert_memory", "SELECT * FROM pymem.upsert_memory($1, $2, $3)",
    ["ann", "Ann drinks green tea", vec(0)], [T, T, V]);
  await call("upsert_memory, kind positional (README)",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, $4)",
    ["ann", "Ann REALLY drinks green tea!", vec(0, 0.99), "fact"], [T, T, V, T]);
  const react = await one("upsert_memory, topic by name (README)",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, topic => $4)",
    ["ann", "Ann is learning React", vec(10), "skill:react"], [T, T, V, T]);
  await call("upsert_memory, every option by name",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, kind => $4, importance => $5,"
    + " source => $6, pinned => $7, metadata => $8, details => $9, topic => $10,"
    + " canonical => $11, valid_until => $12, decay_rate => $13, dedup_threshold => $14,"
    + " supersede_threshold => $15, on_related => $16, contacts => $17)",
    ["ann", "Ann's sister Xiaohong works at Tencent", vec(20), "profile", 0.7, "confirmed",
      true, { app: "node" }, { employer: "Tencent" }, "family:sister", "sister works at tencent",
      new Date(Date.now() + 86400e3), 0.01, 0.95, 0.7, "insert", ["小红"]],
    [T, T, V, T, F, T, B, J, J, T, T, TS, F, F, F, T, "text[]"]);
  const a1c = await one("upsert_memory, thresholds by name",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, dedup_threshold => $4,"
    + " supersede_threshold => $5)",
    ["ann", "My A1C is 7.2%", vec(30), bands.dedup_threshold, bands.supersede_threshold],
    [T, T, V, F, F]);
  await call("upsert_memory, same statement new value",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, dedup_threshold => $4,"
    + " supersede_threshold => $5)",
    ["ann", "My A1C is 6.8%", vec(30, 0.9), bands.dedup_threshold, bands.supersede_threshold],
    [T, T, V, F, F]);
  const related = await one("upsert_memory, related band (a review)",
    "SELECT * FROM pymem.upsert_memory($1, $2, $3, dedup_threshold => $4,"
    + " supersede_threshold => $5)",
    ["ann", "Ann hikes in the hills on weekends", vec(0, 0.8, 40), bands.dedup_threshold,
      bands.supersede_threshold],
    [T, T, V, F, F]);
  const items = [
    { content: "Ann reads poetry", embedding: JSON.parse(vec(50)) },
    { content: "Ann reads poetry", embedding: JSON.parse(vec(50)), kind: "fact" },
  ];
  await call("upsert_memories, JSON batch", "SELECT * FROM pymem.upsert_memories($1, $2)",
    ["ann", JSON.stringify(items)], [T, J]);
  await call("upsert_memories, JSON batch, options by name",
    "SELECT * FROM pymem.upsert_memories($1, $2, dedup_threshold => $3,"
    + " supersede_threshold => $4, on_related => $5)",
    ["ann", JSON.stringify(items), 0.95, 0.7, "insert"], [T, J, F, F, T]);
  await call("upsert_memories, JSON batch, every argument by name",
    "SELECT * FROM pymem.upsert_memories(user_id => $1, items => $2)",
    ["ann", JSON.stringify(items)], [T, J]);
  const coffee = await call("upsert_memory_arrays",
    "SELECT * FROM pymem.upsert_memory_arrays($1, $2, $3)",
    ["ann", ["Ann likes coffee", "Ann drinks americano", "Ann takes no sugar"],
      [vec(60), vec(60, 0.9, 61), vec(60, 0.85, 62)]],
    [T, "text[]", "vector[]"]);
  await call("upsert_memory_arrays, options positional and by name",
    "SELECT * FROM pymem.upsert_memory_arrays($1, $2, $3, $4, dedup_threshold => $5,"
    + " supersede_threshold => $6, on_related => $7)",
    ["ann", ["Ann plays chess"], [vec(70)], JSON.stringify([{ kind: "habit" }]), 0.95, 0.7,
      "review"],
    [T, "text[]", "vector[]", J, F, F, T]);
  await call("check_contents", "SELECT pymem.check_contents($1)", [["Ann likes tea"]],
    ["text[]"]);
  await call("check_contents, labels", "SELECT pymem.check_contents($1, $2)",
    [["Ann likes tea", " "], ["line 1", "line 2"]], ["text[]", "text[]"], "PM002");
  await call("import_memories",
    "SELECT * FROM pymem.import_memories($1, $2, $3, $4, $5)",
    ["ann", "memories.jsonl", [1, 2], ["Ann drinks tea", "Ann drinks tea"],
      [vec(80), vec(80)]],
    [T, T, "integer[]", "text[]", "vector[]"]);
  await call("import_memories, options",
    "SELECT * FROM pymem.import_memories($1, $2, $3, $4, $5, $6)",
    ["ann", "memories.jsonl", [3], ["Ann drinks oolong"], [vec(81)],
      JSON.stringify([{ kind: "preference" }])],
    [T, T, "integer[]", "text[]", "vector[]", J]);
  await call("import_lines_done", "SELECT pymem.import_lines_done($1, $2)",
    ["ann", "memories.jsonl"], [T, T]);

  // --- the review queue
  await call("pending_reviews", "SELECT * FROM pymem.pending_reviews($1)", ["ann"], [T]);
  await call("resolve_review", "SELECT pymem.resolve_review($1, $2, $3)",
    ["ann", related.memory_id, "keep_both"], [T, U, T]);

  // --- read path and decay
  await call("decay_score", "SELECT pymem.decay_score($1, $2, $3)",
    [0.8, 0.01, new Date(Date.now() - 10 * 86400e3)], [F, F, TS]);
  await call("decay_score, at", "SELECT pymem.decay_score($1, $2, $3, $4)",
    [0.8, 0.01, new Date(Date.now() - 10 * 86400e3), new Date()], [F, F, TS, TS]);
  await call("recall", "SELECT * FROM pymem.recall($1, $2)", ["ann", vec(0)], [T, V]);
  await call("recall, k and query_text (README)",
    "SELECT * FROM pymem.recall($1, $2, k => $3, query_text => $4)",
    ["ann", vec(10), 2, "React"], [T, V, I, T]);
  await call("recall, every option by name",
    "SELECT * FROM pymem.recall($1, $2, k => $3, query_text => $4, kinds => $5,"
    + " include_cold => $6, min_similarity => $7, touch => $8, at => $9)",
    ["ann", vec(0), 5, "tea", ["fact", "preference"], true, 0.1, true, new Date()],
    [T, V, I, T, "text[]", B, F, B, TS]);
  await call("touch", "SELECT pymem.touch($1, $2)", ["ann", [tea.memory_id, react.memory_id]],
    [T, "uuid[]"]);
  await call("apply_decay", "SELECT * FROM pymem.apply_decay()", [], []);
  await call("apply_decay, at (README)", "SELECT * FROM pymem.apply_decay(at => $1)",
    [new Date(Date.now() + 2 * 365 * 86400e3)], [TS]);
  await call("apply_decay, every option by name",
    "SELECT * FROM pymem.apply_decay(at => $1, cold_below => $2, user_id => $3,"
    + " batch_blocks => $4)",
    [new Date(), 0.05, "ann", 4096], [TS, F, T, I]);
  await call("run_decay", "CALL pymem.run_decay(at => $1, cold_below => $2, batch_blocks => $3)",
    [new Date(), 0.05, 4096], [TS, F, I]);

  // --- facts and contradictions
  await call("set_fact", "SELECT pymem.set_fact($1, $2, $3)",
    ["ann", "user_city", JSON.stringify("Hangzhou")], [T, T, J]);
  // a JS string is not JSON text: PostgreSQL refuses it while binding, before pymem
  // runs, and its CONTEXT (node-pg's err.where) names the parameter by position
  await call("set_fact, a plain JS string as the value", "SELECT pymem.set_fact($1, $2, $3)",
    ["ann", "user_city", "Hangzhou"], [T, T, J], "22P02");
  await call("set_fact, confidence a number by name",
    "SELECT pymem.set_fact($1, $2, $3, confidence => $4)",
    ["ann", "user_city", JSON.stringify("Shanghai"), 0.9], [T, T, J, F]);
  await call("set_fact, confidence_level by name",
    "SELECT pymem.set_fact($1, $2, $3, confidence_level => $4)",
    ["ann", "user_city", JSON.stringify("Beijing"), "low"], [T, T, J, T]);
  await call("set_fact, every argument positional",
    "SELECT pymem.set_fact($1, $2, $3, $4, $5, $6, $7)",
    ["ann", "mood", JSON.stringify("tired"), 0.8, "state", "stated",
      new Date(Date.now() + 3600e3)],
    [T, T, J, F, T, T, TS]);
  await call("set_fact, options by name",
    "SELECT pymem.set_fact($1, $2, $3, confidence => $4, scope => $5, source => $6,"
    + " valid_until => $7)",
    ["ann", "bedtime", JSON.stringify("23:00"), 0.7, "habit", "inferred", null],
    [T, T, J, F, T, T, TS]);
  await call("set_fact, confidence and confidence_level",
    "SELECT pymem.set_fact($1, $2, $3, confidence => $4, confidence_level => $5)",
    ["ann", "bedtime", JSON.stringify("22:00"), 0.9, "high"], [T, T, J, F, T], "PM023");
  await call("set_fact_policy", "SELECT pymem.set_fact_policy($1, $2)", ["likes_*", "confirm"],
    [T, T]);
  for (const os of ["Windows", "Mac"]) {
    await call(`set_fact ${os}, confidence_level high`,
      "SELECT pymem.set_fact($1, $2, $3, confidence_level => $4)",
      ["ann", "likes_os", JSON.stringify(os), "high"], [T, T, J, T]);
  }
  await call("get_fact", "SELECT pymem.get_fact($1, $2)", ["ann", "user_city"], [T, T]);
  await call("get_fact, as_of", "SELECT pymem.get_fact($1, $2, $3)",
    ["ann", "user_city", new Date(Date.now() - 365 * 86400e3)], [T, T, TS]);
  await call("fact_history", "SELECT * FROM pymem.fact_history($1, $2)", ["ann", "user_city"],
    [T, T]);
  await call("current_facts", "SELECT * FROM pymem.current_facts($1)", ["ann"], [T]);
  await call("pending_conflicts", "SELECT * FROM pymem.pending_conflicts($1)", ["ann"], [T]);
  await call("contradiction_rate", "SELECT pymem.contradiction_rate($1)", ["ann"], [T]);
  await call("contradiction_rate, every user", "SELECT pymem.contradiction_rate()", [], []);
  await call("resolve_conflict", "SELECT pymem.resolve_conflict($1, $2, $3)",
    ["ann", "likes_os", JSON.stringify("Mac")], [T, T, J]);
  await call("resolve_conflict, scope by name",
    "SELECT pymem.resolve_conflict($1, $2, $3, scope => $4)",
    ["ann", "likes_os", JSON.stringify("Mac"), "habit"], [T, T, J, T], "PM025");
  await call("flag_conflict", "SELECT pymem.flag_conflict($1, $2, $3)",
    ["ann", tea.memory_id, react.memory_id], [T, U, U]);
  await call("flag_conflict, note", "SELECT pymem.flag_conflict($1, $2, $3, $4)",
    ["ann", tea.memory_id, react.memory_id, "tea or React?"], [T, U, U, T]);
  await call("undo", "SELECT pymem.undo($1, $2)", ["ann", a1c.memory_id], [T, U]);
  await call("undo, to_version", "SELECT pymem.undo($1, $2, $3)", ["ann", a1c.memory_id, 2],
    [T, U, I]);

  // --- contacts
  await call("sync_contact", "SELECT pymem.sync_contact($1, $2)", ["ann", "Xiaohong"], [T, T]);
  await call("sync_contact, every option by name",
    "SELECT pymem.sync_contact($1, $2, memory_ids => $3, relationship => $4,"
    + " attributes => $5, aliases => $6, description => $7)",
    ["ann", "小红", [tea.memory_id], "朋友", { 公司: "腾讯" }, ["红红"], "Ann's friend"],
    [T, T, "uuid[]", T, J, "text[]", T]);
  await call("resolve_contact", "SELECT * FROM pymem.resolve_contact($1, $2)", ["ann", "红红"],
    [T, T]);
  await call("mentioned_contacts", "SELECT * FROM pymem.mentioned_contacts($1, $2)",
    ["ann", "红红最近怎么样？"], [T, T]);
  await call("contact_memories", "SELECT * FROM pymem.contact_memories($1, $2)",
    ["ann", "小红"], [T, T]);
  await call("contact_memories, k", "SELECT * FROM pymem.contact_memories($1, $2, k => $3)",
    ["ann", "小红", 5], [T, T, I]);
  await call("contact_card", "SELECT pymem.contact_card($1, $2)", ["ann", "小红"], [T, T]);
  await call("contact_card, max_chars", "SELECT pymem.contact_card($1, $2, max_chars => $3)",
    ["ann", "小红", 20], [T, T, I]);
  await call("consolidate_contact",
    "SELECT pymem.consolidate_contact($1, $2, description => $3, attributes => $4)",
    ["ann", "小红", "Ann's friend at Tencent", { 城市: "深圳" }], [T, T, T, J]);
  await call("recent_contacts", "SELECT * FROM pymem.recent_contacts($1)", ["ann"], [T]);
  await call("recent_contacts, k", "SELECT * FROM pymem.recent_contacts($1, k => $2)",
    ["ann", 3], [T, I]);
  await call("merge_contacts", "SELECT pymem.merge_contacts($1, $2, $3)",
    ["ann", "小红", "Xiaohong"], [T, T, T]);

  // --- consolidation
  await call("consolidation_candidates", "SELECT * FROM pymem.consolidation_candidates($1)",
    ["ann"], [T]);
  await call("consolidation_candidates, every option by name",
    "SELECT * FROM pymem.consolidation_candidates($1, min_similarity => $2, min_group => $3,"
    + " include_pinned => $4, kinds => $5)",
    ["ann", 0.7, 2, true, ["fact"]], [T, F, I, B, "text[]"]);
  const fragments = coffee.map((r) => r.memory_id);
  const record = await one("consolidate", "SELECT pymem.consolidate($1, $2, $3, $4) AS id",
    ["ann", fragments, "Ann drinks americano, no sugar", vec(60)], [T, "uuid[]", T, V]);
  await call("consolidate, details by name",
    "SELECT pymem.consolidate($1, $2, $3, $4, details => $5)",
    ["ann", fragments, "again", vec(60), { drink: "americano" }], [T, "uuid[]", T, V, J]);
  await call("apply_maintenance", "SELECT * FROM pymem.apply_maintenance($1, $2)",
    ["ann", JSON.stringify([{ op: "no-change", id: record.id }])], [T, J]);
  await call("unconsolidate", "SELECT pymem.unconsolidate($1, $2)", ["ann", record.id], [T, U]);

  // --- quality
  await call("quality_report", "SELECT * FROM pymem.quality_report($1)", ["ann"], [T]);
  await call("quality_report, every user", "SELECT * FROM pymem.quality_report()", [], []);
} finally {
  await client.end();
}
process.stdout.write(JSON.stringify({ steps }) + "\n");
