from tests.conftest import unit


def test_insert_then_duplicate(store):
    first = store.upsert("u", "User drinks americano", unit(0))
    second = store.upsert("u", "User drinks americano", unit(0))
    assert first.action == "inserted"
    assert second.action == "duplicate"
    assert second.memory_id == first.memory_id
