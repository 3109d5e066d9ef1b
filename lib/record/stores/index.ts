// Compact stores of columns for what the state holds once per entry (docs/record.md, "How the state is kept"): the
// columns themselves (columns.ts), the reviews, the reports per signing key and the replay index.
// Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export {
  appendTo,
  Ascending,
  type Bytes,
  ChangingColumn,
  type Floats,
  columnCopy,
  type ColumnCopy,
  decimalAt,
  decimalFitting,
  type Decimals,
  grow,
  HexIds,
  type Ints,
  isoMs,
  isoTs,
  owned,
  RowIndex,
  type Rows,
  setDecimal,
  type Shorts,
  SmallCounts,
  tsMs,
  WholeOrDoubles,
} from './columns.js';
export { SeenIndex } from './replay-index.js';
