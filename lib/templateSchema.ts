import { loadAwsServiceSpec } from '@aws-cdk/aws-service-spec';
import type { PropertyType, Property, SpecDatabase } from '@aws-cdk/service-spec-types';

/**
 * A synthesized template checked against CloudFormation's resource schemas, as the CDK team
 * publishes them (@aws-cdk/aws-service-spec, the database aws-cdk-lib's L1 constructs are
 * generated from): every resource's type exists, every property is known, required properties
 * are there, and each value has its property's shape (string, integer, number, boolean, a list,
 * a map, a structure of known fields, a tag). Raw resources and escape hatches are checked like
 * the rest. An intrinsic function (`Ref`, `Fn::GetAtt`, `Fn::Join`…) stands for any value; both
 * branches of an `Fn::If` are checked. The schemas carry no enumerations, so allowed values
 * (a runtime name, say) are CloudFormation's to refuse at deploy.
 */

export interface TemplateProblem {
  /** The template's logical id of the resource. */
  resource: string;
  type: string;
  /** Where in its properties, `Properties.Code.S3Key`. */
  path: string;
  message: string;
}

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export const loadResourceSchemas = (): Promise<SpecDatabase> => loadAwsServiceSpec();

/** Every problem of every resource of `template` (none: it matches the schemas). */
export function checkTemplate(template: { Resources?: Record<string, TemplateResource> }, db: SpecDatabase): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const [id, resource] of Object.entries(template.Resources ?? {})) {
    const report = (path: string, message: string) => problems.push({ resource: id, type: resource.Type, path, message });
    // A custom resource's properties are its handler's to read.
    if (resource.Type === 'AWS::CloudFormation::CustomResource' || resource.Type.startsWith('Custom::')) continue;
    const [spec] = db.lookup('resource', 'cloudFormationType', 'equals', resource.Type);
    if (!spec) {
      report('Type', `no resource type ${resource.Type} in CloudFormation's schemas`);
      continue;
    }
    checkFields(resource.Properties ?? {}, spec.properties, 'Properties', db, report);
  }
  return problems;
}

type Report = (path: string, message: string) => void;

function checkFields(value: unknown, fields: Record<string, Property>, path: string, db: SpecDatabase, report: Report): void {
  if (isIntrinsic(value)) return checkIntrinsic(value, path, (branch, at) => checkFields(branch, fields, at, db, report));
  if (!isObject(value)) return report(path, `must be an object, not ${describe(value)}`);
  for (const [name, field] of Object.entries(value)) {
    const property = fields[name];
    if (!property) report(`${path}.${name}`, `no property ${name} here (known: ${Object.keys(fields).sort().join(', ')})`);
    else checkValue(field, property.type, `${path}.${name}`, db, report);
  }
  for (const [name, property] of Object.entries(fields)) {
    if (property.required && !(name in value)) report(`${path}.${name}`, 'is required');
  }
}

function checkValue(value: unknown, type: PropertyType, path: string, db: SpecDatabase, report: Report): void {
  if (isIntrinsic(value)) return checkIntrinsic(value, path, (branch, at) => checkValue(branch, type, at, db, report));
  switch (type.type) {
    case 'json':
      return;
    case 'string':
    case 'date-time':
      // CloudFormation takes a number or a boolean where a string is asked, as its text.
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        report(path, `must be a string, not ${describe(value)}`);
      return;
    case 'integer':
    case 'number': {
      const pattern = type.type === 'integer' ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/;
      const ok =
        typeof value === 'number' ? type.type === 'number' || Number.isInteger(value) : typeof value === 'string' && pattern.test(value);
      if (!ok) report(path, `must be ${type.type === 'integer' ? 'an integer' : 'a number'}, not ${describe(value)}`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean' && value !== 'true' && value !== 'false')
        report(path, `must be true or false, not ${describe(value)}`);
      return;
    case 'array':
      if (!Array.isArray(value)) return report(path, `must be a list, not ${describe(value)}`);
      for (const [index, element] of value.entries()) checkValue(element, type.element, `${path}[${index}]`, db, report);
      return;
    case 'map':
      if (!isObject(value)) return report(path, `must be a map, not ${describe(value)}`);
      for (const [key, element] of Object.entries(value)) checkValue(element, type.element, `${path}.${key}`, db, report);
      return;
    case 'tag':
      return checkFields(value, tagFields, path, db, report);
    case 'ref':
      return checkFields(value, db.get('typeDefinition', type.reference.$ref).properties, path, db, report);
    case 'union': {
      // Fits when one of the types takes it whole.
      const fits = type.types.some((candidate) => {
        let failed = false;
        checkValue(value, candidate, path, db, () => (failed = true));
        return !failed;
      });
      if (!fits) report(path, `matches none of its allowed shapes (${describe(value)})`);
      return;
    }
    default:
      return report(path, `has a shape this check does not know (${(type as { type: string }).type})`);
  }
}

const tagFields: Record<string, Property> = {
  Key: { type: { type: 'string' }, required: true },
  Value: { type: { type: 'string' }, required: true },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{Ref: …}` or `{"Fn::…": …}`: a value CloudFormation computes at deploy. */
function isIntrinsic(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'));
}

/** `Fn::If`'s two branches are checked as the value (`AWS::NoValue` is an absent value); other intrinsics are taken as they are. */
function checkIntrinsic(value: Record<string, unknown>, path: string, check: (branch: unknown, path: string) => void): void {
  const branches = value['Fn::If'];
  if (!Array.isArray(branches) || branches.length !== 3) return;
  for (const [index, branch] of branches.slice(1).entries()) {
    if (isObject(branch) && branch.Ref === 'AWS::NoValue') continue;
    check(branch, `${path}(Fn::If ${index === 0 ? 'then' : 'else'})`);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}
