import { MemoryNoticeMarks } from '../fakes/noticeMarks.ts';
import { describeNoticeMarksContract } from './noticeMarks.contract.ts';

describeNoticeMarksContract('memory', () => new MemoryNoticeMarks());
