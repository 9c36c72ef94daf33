/**
 * Where a paged panel is in its list (`pagedPanel.ts`): one read at a time, the first page or
 * the next from the cursor the server gave. No DOM: unit-tested as it is.
 */
export class PageCursor {
  private cursor: string | null = null;
  private busy = false;
  /** A page has been read since the panel was made (or last forgotten). */
  loaded = false;

  /** The cursor to read from (null: the first page), or undefined while a read is under way: it is not started twice. */
  begin(next: boolean): string | null | undefined {
    if (this.busy) return undefined;
    this.busy = true;
    return next ? this.cursor : null;
  }

  /**
   * A page of `count` items was read. A cursor can come back although nothing follows: an empty
   * page ends the list too. Answers whether there is more to read.
   */
  took(count: number, nextCursor: string | null): boolean {
    this.loaded = true;
    this.cursor = count > 0 ? nextCursor : null;
    return this.cursor !== null;
  }

  /** The read is over, whatever its outcome. */
  end(): void {
    this.busy = false;
  }
}
