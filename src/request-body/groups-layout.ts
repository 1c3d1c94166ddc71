// Where a /score-plan body's groups lie in its bytes, found as the bytes arrive. A large body's workers
// then each read the groups they judge and the main thread only the rest (reading 4,096 plans whole on one
// worker made a long serial stage before the judging); a middling one, a 64×8 batch, is parsed here group
// by group as it arrives (GroupsReader), which served it faster than reading its groups on the workers,
// the threads that judge.
//
// The scanner only finds boundaries; it does not check the JSON. It is sound, not complete: whenever it
// reports a layout and the body with the groups array emptied ("the head") parses, the head and each run of
// groups, parsed with JSON.parse, put together are the body as JSON.parse reads it whole
// (test/request-body/groups-layout.test.ts holds it to that on random and mutilated bodies). A body it is
// unsure of (a key written with escapes, a repeated "groups" key, groups that are not objects) gets no
// layout and is read whole.

/** The bytes of a body's groups: the array's range and each group's, brackets and braces included. */
export interface GroupsLayout {
  array: readonly [start: number, end: number];
  starts: readonly number[];
  ends: readonly number[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

// Nesting levels: the body's object is 1, the groups array 2, a group 3.
const BODY = 1;
const GROUPS = 2;
const GROUP = 3;

// Within the groups array: what may come next.
const FIRST = 0; // a group or the closing bracket
const AFTER = 1; // a comma or the closing bracket
const NEXT = 2; // a group

/** Fed a body's bytes in order, chunk by chunk; `layout` at the end. */
export class GroupsScanner {
  #at = 0;
  #depth = 0;
  #started = false;
  #bad = false;
  #inString = false;
  #escaped = false;
  // The key being read, when a string is a key of the body.
  #capturing = false;
  #key = '';
  #keyEscaped = false;
  #keyNext = false;
  #lastKey = '';
  // The value of "groups" comes next.
  #pending = false;
  #seenGroups = false;
  #inGroups = false;
  #arrayStart = -1;
  #arrayEnd = -1;
  #state = FIRST;
  #groupStart = -1;
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  /** Reads the next bytes of the body. */
  feed(bytes: Uint8Array): void {
    const base = this.#at;
    const to = bytes.length;
    this.#at += to;
    let i = 0;
    while (i < to && !this.#bad) {
      if (this.#inString && !this.#capturing) {
        // Most of a body is completion text, escapes and all: skip to its closing quote.
        let j = this.#escaped ? i + 1 : i;
        while (j < to) {
          const c = bytes[j]!;
          if (c === BACKSLASH) j += 2;
          else if (c === QUOTE) break;
          else j++;
        }
        // Past the end: the chunk ended on a backslash, whose character comes in the next one.
        this.#escaped = j > to;
        if (j >= to) return;
        this.#inString = false;
        i = j + 1;
      } else {
        if (this.#inString) this.#keyByte(bytes[i]!);
        else this.#structural(bytes[i]!, base + i);
        i++;
      }
    }
  }

  /** The groups found so far: their ranges. */
  get found(): Pick<GroupsLayout, 'starts' | 'ends'> {
    return { starts: this.#starts, ends: this.#ends };
  }

  /** The layout, or null: the body is not one the scanner is sure of (or not JSON). */
  layout(): GroupsLayout | null {
    if (this.#bad || !this.#started || this.#depth !== 0 || this.#inString || this.#arrayEnd < 0 || this.#starts.length === 0) return null;
    return { array: [this.#arrayStart, this.#arrayEnd], starts: this.#starts, ends: this.#ends };
  }

  #keyByte(c: number): void {
    if (this.#escaped) this.#escaped = false;
    else if (c === BACKSLASH) {
      this.#escaped = true;
      this.#keyEscaped = true;
    } else if (c === QUOTE) {
      this.#inString = false;
      this.#capturing = false;
      // A key with escapes might spell "groups": such a body is read whole.
      if (this.#keyEscaped) this.#bad = true;
      else this.#lastKey = this.#key;
    } else if (this.#key.length < 16) this.#key += String.fromCharCode(c);
  }

  #structural(c: number, at: number): void {
    if (isSpace(c)) return;
    if (this.#depth === 0) {
      // One object, nothing before it (a byte-order mark included) and nothing after.
      if (this.#started || c !== OPEN_OBJECT) this.#bad = true;
      else {
        this.#started = true;
        this.#depth = BODY;
        this.#keyNext = true;
      }
      return;
    }
    if (this.#pending) {
      this.#pending = false;
      if (c !== OPEN_ARRAY) this.#bad = true;
      else {
        this.#inGroups = true;
        this.#arrayStart = at;
        this.#state = FIRST;
        this.#depth = GROUPS;
      }
      return;
    }
    if (this.#inGroups && this.#depth === GROUPS) {
      if (c === OPEN_OBJECT && this.#state !== AFTER) {
        this.#groupStart = at;
        this.#depth = GROUP;
      } else if (c === COMMA && this.#state === AFTER) this.#state = NEXT;
      else if (c === CLOSE_ARRAY && this.#state !== NEXT) {
        this.#inGroups = false;
        this.#arrayEnd = at + 1;
        this.#depth = BODY;
      } else this.#bad = true;
      return;
    }
    switch (c) {
      case QUOTE:
        this.#inString = true;
        this.#capturing = this.#depth === BODY && this.#keyNext;
        this.#key = '';
        this.#keyEscaped = false;
        return;
      case COLON:
        if (this.#depth === BODY && this.#keyNext) {
          this.#keyNext = false;
          if (this.#lastKey === 'groups') {
            // JSON.parse keeps the last of repeated keys; the scanner does not guess which.
            if (this.#seenGroups) this.#bad = true;
            this.#seenGroups = true;
            this.#pending = true;
          }
        }
        return;
      case COMMA:
        if (this.#depth === BODY) this.#keyNext = true;
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.#depth++;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (this.#inGroups && this.#depth === GROUP) {
          if (c !== CLOSE_OBJECT) {
            this.#bad = true;
            return;
          }
          this.#starts.push(this.#groupStart);
          this.#ends.push(at + 1);
          this.#state = AFTER;
          this.#depth = GROUPS;
          return;
        }
        this.#depth--;
        return;
    }
  }
}

/**
 * The body with its groups array emptied ("groups": [] in its place): the head, read on its own while the
 * workers read the groups.
 */
export function headText(bytes: Uint8Array, layout: GroupsLayout): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return `${b.toString('utf8', 0, layout.array[0])}[]${b.toString('utf8', layout.array[1])}`;
}

/**
 * A body read as it arrives: each group parsed as soon as its last byte is in, the rest of the body (the
 * head) once all of it is. `parse` throws on text that is not JSON.
 */
export class GroupsReader {
  readonly #scanner = new GroupsScanner();
  readonly #chunks: Uint8Array[] = [];
  readonly #offsets: number[] = [];
  #size = 0;
  readonly #groups: unknown[] = [];
  #failed = false;
  #k = 0;

  constructor(private readonly parse: (text: string) => unknown) {}

  /** The body's next bytes: kept (not copied) until the reader is dropped. */
  feed(chunk: Uint8Array): void {
    this.#offsets.push(this.#size);
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    this.#scanner.feed(chunk);
    if (this.#failed) return;
    const { starts, ends } = this.#scanner.found;
    try {
      for (let i = this.#groups.length; i < ends.length; i++) this.#groups.push(this.parse(this.#text(starts[i]!, ends[i]!)));
    } catch {
      this.#failed = true;
    }
  }

  /** The chunks so far. */
  get chunks(): readonly Uint8Array[] {
    return this.#chunks;
  }

  /**
   * The whole body as `parse` reads it, or undefined: no layout, a part that is not JSON, or a head whose
   * groups are not the empty array the layout left. The body is then to be parsed whole, for its value or its error.
   */
  value(): unknown {
    const layout = this.#scanner.layout();
    if (!layout || this.#failed) return undefined;
    let head: { groups?: unknown } | null;
    try {
      head = this.parse(`${this.#text(0, layout.array[0])}[]${this.#text(layout.array[1], this.#size)}`) as typeof head;
    } catch {
      return undefined;
    }
    if (typeof head !== 'object' || head === null || !Array.isArray(head.groups) || head.groups.length !== 0) return undefined;
    // In the empty array's place: "groups" keeps its position among the keys.
    head.groups = this.#groups;
    return head;
  }

  /** Text of bytes [from, to), copying only what spans two chunks. Ranges come mostly in order. */
  #text(from: number, to: number): string {
    const offsets = this.#offsets;
    const chunks = this.#chunks;
    if (this.#k >= chunks.length || offsets[this.#k]! > from) this.#k = 0;
    while (this.#k + 1 < chunks.length && offsets[this.#k + 1]! <= from) this.#k++;
    const k = this.#k;
    const first = chunks[k]!;
    const buffer = (c: Uint8Array) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    if (to <= offsets[k]! + first.length) return buffer(first).toString('utf8', from - offsets[k]!, to - offsets[k]!);
    const pieces: Uint8Array[] = [];
    for (let j = k; j < chunks.length && offsets[j]! < to; j++) {
      pieces.push(chunks[j]!.subarray(Math.max(0, from - offsets[j]!), Math.min(chunks[j]!.length, to - offsets[j]!)));
    }
    return Buffer.concat(pieces).toString('utf8');
  }
}
