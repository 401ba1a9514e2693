import { describe, expect, it } from 'vitest';
import { fails, run } from './helpers.js';

const program = `
order = []
def note(x):
    order.append(x)
    return x

def make(i):
    return {"name": note("n%d" % i), "age": note(i), "city": note("c")}

def main():
    r = make(1)
    r["zip"] = "123"
    for k in ["a", "b", "c", "d", "e", "f", "g"]:
        r[k] = k.upper()
    r["name"] = "changed"
    r.pop("age")
    wide = {"k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8, "k9": 9}
    mixed = {"a": 1, 2: "b", "c": 3}
    return [r, sorted(r.keys()), r.get("f"), "age" in r, wide, mixed, order]
result = main()
top = {"x": 1, "y": [2]}
top["z"] = 3
`;

describe('dict literals', () => {
  for (const codegen of [true, false]) {
    it(`keep order, values and later changes (${codegen ? 'generated' : 'closures'})`, () => {
      const [r, keys, f, hasAge, wide, mixed, order] = run(program, { codegen }) as unknown[];
      expect(r).toEqual({
        name: 'changed',
        city: 'c',
        zip: '123',
        a: 'A',
        b: 'B',
        c: 'C',
        d: 'D',
        e: 'E',
        f: 'F',
        g: 'G',
      });
      expect(Object.keys(r as object)).toEqual([
        'name',
        'city',
        'zip',
        'a',
        'b',
        'c',
        'd',
        'e',
        'f',
        'g',
      ]);
      expect(keys).toEqual(['a', 'b', 'c', 'city', 'd', 'e', 'f', 'g', 'name', 'zip']);
      expect([f, hasAge]).toEqual(['F', false]);
      expect(wide).toEqual({ k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9 });
      expect(mixed).toBeInstanceOf(Map);
      // Values are evaluated in order, once each.
      expect(order).toEqual(['n1', 1, 'c']);
      expect(run(program, { codegen }, 'top')).toEqual({ x: 1, y: [2], z: 3 });
    });

    it(`still refuses a duplicate key (${codegen ? 'generated' : 'closures'})`, () => {
      const src = 'def main():\n    return {"a": 1, "b": 2, "a": 3}\nresult = main()\n';
      expect(fails(src, { codegen }).message).toContain('duplicate key: "a"');
    });
  }
});
