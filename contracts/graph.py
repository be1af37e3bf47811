"""The step graph: a stable topological order, the cycles that prevent one, and the ready set.

Order is deterministic (ties go to the step written first) so the same plan always runs the
same way, which keeps traces comparable across runs and bench modes.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Protocol

from contracts.plan import StepContract

Graph = Mapping[str, Sequence[str]]
"""stepId -> the stepIds it depends on, in plan order; edges to unknown ids are ignored."""


class CycleError(ValueError):
    """The steps depend on each other in a circle; `cycle` is closed: ['a', 'b', 'a']."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = cycle
        super().__init__(f"dependency cycle: {' -> '.join(cycle)}")


def dependency_graph(steps: Sequence[StepContract]) -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for step in steps:
        graph.setdefault(step.step_id, []).extend(step.dependencies)
    return graph


def topological_order(steps: Sequence[StepContract]) -> list[str]:
    """Every step after its dependencies; among steps ready together, plan order wins."""
    return order_graph(dependency_graph(steps))


def order_graph(graph: Graph) -> list[str]:
    position = {node: i for i, node in enumerate(graph)}
    waiting = {node: 0 for node in graph}
    dependents: dict[str, list[str]] = {node: [] for node in graph}
    for node, deps in graph.items():
        for dep in dict.fromkeys(deps):
            if dep in graph:
                waiting[node] += 1
                dependents[dep].append(node)
    ready = [position[node] for node, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    nodes = list(graph)
    order: list[str] = []
    while ready:
        node = nodes[heapq.heappop(ready)]
        order.append(node)
        for dependent in dependents[node]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                heapq.heappush(ready, position[dependent])
    if len(order) < len(graph):
        raise CycleError(find_cycles(graph)[0])
    return order


def find_cycles(graph: Graph) -> list[list[str]]:
    """One closed cycle per strongly connected component, starting at its earliest step."""
    position = {node: i for i, node in enumerate(graph)}
    cycles: list[list[str]] = []
    for component in _components(graph):
        members = set(component)
        start = min(component, key=position.__getitem__)
        if len(component) == 1 and start not in graph[start]:
            continue
        cycles.append(_cycle_through(graph, start, members))
    return sorted(cycles, key=lambda cycle: position[cycle[0]])


def _cycle_through(graph: Graph, start: str, members: set[str]) -> list[str]:
    """The shortest path start -> ... -> start inside one component (breadth first)."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for dep in graph[node]:
            if dep == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return [*reversed(path), start]
            if dep in members and dep not in parent:
                parent[dep] = node
                queue.append(dep)
    raise AssertionError("a strongly connected component always holds a cycle")


def _components(graph: Graph) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative so a 10,000-step chain is fine."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(graph[root]))]
        while work:
            node, edges = work[-1]
            descended = False
            for dep in edges:
                if dep not in graph:
                    continue
                if dep not in index:
                    index[dep] = low[dep] = len(index)
                    stack.append(dep)
                    on_stack.add(dep)
                    work.append((dep, iter(graph[dep])))
                    descended = True
                    break
                if dep in on_stack:
                    low[node] = min(low[node], index[dep])
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def ancestors(graph: Graph, node: str) -> set[str]:
    """Every step `node` depends on, directly or through others (not `node` itself)."""
    seen: set[str] = set()
    queue = deque(graph.get(node, ()))
    while queue:
        dep = queue.popleft()
        if dep in seen:
            continue
        seen.add(dep)
        queue.extend(graph.get(dep, ()))
    seen.discard(node)
    return seen


class _HasContract(Protocol):
    @property
    def contract(self) -> StepContract: ...


class OrderedPlan(Protocol):
    """What `ready_steps` reads of a plan (`contracts.validation.ValidPlan` is one); a
    protocol, so the graph module needs nothing of the validation that uses it."""

    @property
    def order(self) -> Sequence[str]: ...

    @property
    def steps(self) -> Mapping[str, _HasContract]: ...


def ready_steps(plan: OrderedPlan, verified: set[str]) -> list[str]:
    """Unverified steps whose dependencies are all verified, in plan order of execution.

    A dependency outside the plan was accepted only because it was verified in an earlier plan
    version, so it counts as met.
    """
    return [
        step_id
        for step_id in plan.order
        if step_id not in verified
        and all(
            dep in verified or dep not in plan.steps
            for dep in plan.steps[step_id].contract.dependencies
        )
    ]
