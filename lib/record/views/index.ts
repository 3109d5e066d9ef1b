// What the reads show (docs/api.md#the-records-reads): the summary and one item each (items.ts), the readers' reads and lists
// (reads.ts) over the list index (list-index.ts) in pages (paging.ts), the feeds, a log entry's subject and what it withholds,
// an agent's fields, and whether an item is in view (in-view.ts).
// Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { claimMade, type ClaimEntries, claimTexts, type ClaimTexts } from './claim-texts.js';
export { ALL_FIELDS, atomFeed, FEED_ITEMS, feedItems, feedLinks } from './feeds.js';
export { claimField, inFields, operatorFields } from './fields.js';
export {
  argumentInView,
  assertArgumentInView,
  assertChallengeInView,
  assertClaimInView,
  assertItemInView,
  challengeInView,
  claimInView,
} from './in-view.js';
export { argumentsInView, argumentView, challengeView, heartbeat, type Logged, receiptView, summary } from './items.js';
export { agentWork, noteApplied, operatorWork, type ReadIndex, readIndexOf } from './list-index.js';
export { type Mint, PAGE } from './paging.js';
export {
  agentRead,
  agentsList,
  agentsPage,
  argumentItem,
  challengesPage,
  claimArgumentsPage,
  credencePage,
  entryRecords,
  type Filters,
  flagsPage,
  holdsPage,
  operatorRead,
  operatorsList,
  paperItem,
  paperRead,
  papersPage,
  receiptItem,
  reviewItem,
  STATUSES,
  WORK_LISTS,
  WORK_PAGE,
  type WorkList,
  workPage,
} from './reads.js';
export { entrySubject, type Subject } from './subject.js';
export { servedEntry } from './withheld.js';
