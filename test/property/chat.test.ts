import { propertySuite } from '../support/property/suite.ts';

propertySuite('chat');
