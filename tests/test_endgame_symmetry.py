"""The morris board's 16 symmetries, and the count of positions up to them."""

from __future__ import annotations

from itertools import combinations

import pytest

from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.symmetry import SYMMETRIES, class_count, cycles, position_count


def test_sixteen_distinct_symmetries_keep_every_mill_and_edge() -> None:
    assert len(set(SYMMETRIES)) == 16
    assert SYMMETRIES[0] == tuple(range(24))
    mills = {frozenset(mill) for mill in NINE_MENS_MORRIS.mills}
    edges = {frozenset(edge) for edge in NINE_MENS_MORRIS.edges}
    for image in SYMMETRIES:
        assert sorted(image) == list(range(24))
        assert {frozenset(image[p] for p in mill) for mill in mills} == mills
        assert {frozenset(image[p] for p in edge) for edge in edges} == edges


def test_cycles() -> None:
    assert cycles(SYMMETRIES[0]) == [1] * 24
    assert all(sum(cycles(image)) == 24 for image in SYMMETRIES)


def _by_listing(mover: int, other: int) -> int:
    """The classes counted the slow way: every placement, its least image kept."""
    seen = set()
    for white in combinations(range(24), mover):
        rest = [p for p in range(24) if p not in white]
        for black in combinations(rest, other):
            seen.add(
                min(
                    (tuple(sorted(s[p] for p in white)), tuple(sorted(s[p] for p in black)))
                    for s in SYMMETRIES
                )
            )
    return len(seen)


@pytest.mark.parametrize("men", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_the_count_of_classes_equals_listing_them(men: tuple[int, int]) -> None:
    assert class_count(*men) == _by_listing(*men)


def test_three_men_each() -> None:
    assert position_count(3, 3) == 2_691_920  # Gasser's and Malom's count of 3-3
    assert class_count(3, 3) == 169_626
    assert 15.8 < position_count(9, 9) / class_count(9, 9) < 16


def test_the_board_has_exactly_these_symmetries() -> None:
    """Searching every permutation that keeps the edges and mills finds the 16, no more."""
    from zerosum.endgames.board import GRID, SQUARE
    from zerosum.endgames.orbits import automorphisms

    assert set(automorphisms(NINE_MENS_MORRIS)) == set(SYMMETRIES)
    assert len(automorphisms(SQUARE)) == len(automorphisms(GRID)) == 8


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_the_orbits_of_the_sets_are_counted_exactly(k: int) -> None:
    from zerosum.endgames.orbits import image_of, orbits, permutation_bytes

    found = orbits(NINE_MENS_MORRIS, k)
    assert found.count == class_count(k, 0)
    table = permutation_bytes(NINE_MENS_MORRIS)
    masks = sorted(sum(1 << p for p in c) for c in combinations(range(24), k))  # rank order
    for rank in range(0, len(masks), 97):  # each set maps onto its orbit's representative
        mask = masks[rank]
        assert image_of(table, int(found.sym[rank]), mask) == found.rep[found.orbit[rank]]
    for o in range(found.count):  # the stabiliser keeps the representative, and only it
        rep = int(found.rep[o])
        keeps = [g for g in range(1, 16) if image_of(table, g, rep) == rep]
        assert int(found.stab[o]) == sum(1 << g for g in keeps)
