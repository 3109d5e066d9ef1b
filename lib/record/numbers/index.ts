// credence/0.3 (docs/credence.md): its arithmetic, one claim's score and the aggregates kept for it, the rescoring as entries
// land (rescore.ts), verification by the record, the settlement of arguments, what a write counts (counting.ts), the numbers
// as served (served.ts) and the frontier. Outside lib/record/, import this index only (docs/entry-types.md#where-the-records-code-sits).
export { ClaimReviews, HOT_FROM } from './claim-reviews.js';
export { type Counting, COUNTING_RULES, NOTE_ITEM_KINDS, receiptCounting, reviewCounting } from './counting.js';
export { exactSum, ExactSum } from './exact-sum.js';
export { computeFrontier, frontier, FRONTIER_MAX } from './frontier.js';
export { History, RECENT_POINTS, type HistoryData } from './history.js';
export { type Score, type Status } from './indexes.js';
export { KEEP_AGGREGATE_FROM } from './kept.js';
export { DEFAULT_MINUTES, rescoreAll } from './rescore.js';
export {
  anchor,
  calibration,
  calibrationTerm,
  compress,
  dispute,
  establishedAt,
  evidenceStep,
  familyFactor,
  priorOf,
  round4,
  servedProbability,
  valueOfChecking,
} from './rules.js';
export { calibrationOf, countedItems, scoreClaim } from './score.js';
export { afterStart, claimScore, credenceMade, credenceParts, inView, operatorCalibration } from './served.js';
export { settlement, SHUT_OUT_FOR } from './settlement.js';
export { lastRound, qualification, receiptsEarned, receiptsTallied, reportsEarned, reportsTallied, verifyRound } from './verification.js';
