interface Frame {
  value: object;
  depth: number;
  key: string | number | null;
  parent: Frame | null;
}

/** Path to the first container nested deeper than `limit`, or null. Iterative: hostile depth cannot overflow the stack. */
export function pathPastDepth(value: unknown, limit: number): (string | number)[] | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > limit) {
      const path: (string | number)[] = [];
      for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.unshift(f.key);
      return path;
    }
    if (Array.isArray(frame.value)) {
      frame.value.forEach((child: unknown, i) => {
        if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: frame.depth + 1, key: i, parent: frame });
      });
    } else {
      for (const [k, child] of Object.entries(frame.value)) {
        if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: frame.depth + 1, key: k, parent: frame });
      }
    }
  }
  return null;
}
