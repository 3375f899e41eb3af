import type { DependencyEdge } from './types.js';

/**
 * The transaction dependency graph: nodes are transaction indices, and each ordered pair keeps
 * every reason (ww/wr/rw on some key) it is related by, so a cycle can be printed with the
 * weakest reason that the anomaly class allows.
 */
export class DependencyGraph {
  /** out[from] maps to -> the labels of the edge from -> to, in insertion order. */
  readonly out: Map<number, DependencyEdge[]>[];
  edgeCount = 0;

  constructor(readonly size: number) {
    this.out = Array.from({ length: size }, () => new Map());
  }

  add(from: number, to: number, label: DependencyEdge): void {
    if (from === to) return;
    const labels = this.out[from]!.get(to);
    if (labels === undefined) {
      this.out[from]!.set(to, [label]);
      this.edgeCount++;
    } else if (!labels.some((l) => l.type === label.type && l.key === label.key)) {
      labels.push(label);
    }
  }

  /** Successors of `from` over edges carrying at least one label of an allowed type. */
  *successors(from: number, allowed: ReadonlySet<DependencyEdge['type']>): Iterable<number> {
    for (const [to, labels] of this.out[from]!) {
      if (labels.some((l) => allowed.has(l.type))) yield to;
    }
  }

  /** The label to print for from -> to: the first allowed one in `preference` order. */
  label(from: number, to: number, preference: readonly DependencyEdge['type'][]): DependencyEdge {
    const labels = this.out[from]!.get(to)!;
    for (const type of preference) {
      const found = labels.find((l) => l.type === type);
      if (found !== undefined) return found;
    }
    return labels[0]!;
  }
}

/**
 * Strongly connected components with more than one node (Tarjan's algorithm, iterative so a
 * long dependency chain cannot overflow the stack). Components come in a deterministic order.
 */
export function stronglyConnected(size: number, successors: (node: number) => Iterable<number>): number[][] {
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < size; root++) {
    if (index[root] !== -1) continue;
    const work: { node: number; it: Iterator<number> }[] = [];
    const enter = (node: number) => {
      index[node] = low[node] = counter++;
      stack.push(node);
      onStack[node] = 1;
      work.push({ node, it: successors(node)[Symbol.iterator]() });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.it.next();
      if (!step.done) {
        const to = step.value;
        if (index[to] === -1) enter(to);
        else if (onStack[to]) low[frame.node] = Math.min(low[frame.node]!, index[to]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low[parent] = Math.min(low[parent]!, low[frame.node]!);
      }
      if (low[frame.node] === index[frame.node]) {
        const component: number[] = [];
        let node: number;
        do {
          node = stack.pop()!;
          onStack[node] = 0;
          component.push(node);
        } while (node !== frame.node);
        if (component.length > 1) components.push(component.sort((a, b) => a - b));
      }
    }
  }
  return components.sort((a, b) => a[0]! - b[0]!);
}

/**
 * A shortest path from `from` to `to` (breadth first) through nodes in `within`, as the list
 * of nodes from `from` up to but excluding `to`; `null` if there is none. With from === to it
 * finds a shortest cycle through that node.
 */
export function shortestPath(
  from: number,
  to: number,
  within: ReadonlySet<number>,
  successors: (node: number) => Iterable<number>,
): number[] | null {
  const parent = new Map<number, number>();
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of successors(node)) {
      if (!within.has(next)) continue;
      if (next === to) {
        const path = [node];
        for (let at = node; at !== from; ) {
          at = parent.get(at)!;
          path.push(at);
        }
        return path.reverse();
      }
      if (next === from || parent.has(next)) continue;
      parent.set(next, node);
      queue.push(next);
    }
  }
  return null;
}
