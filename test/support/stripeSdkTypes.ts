import { fileURLToPath } from 'node:url';
import { isTypeAliasDeclaration } from 'typescript/unstable/ast/is';
import { API, SymbolFlags, TypeFlags, type Checker, type Symbol as TypeSymbol, type Type } from 'typescript/unstable/sync';

/**
 * The `stripe` package's declared types, read by the TypeScript compiler (its API: TypeScript 7
 * runs the checker in a child process and answers synchronously), and a JSON value checked
 * against one of them: every property the type declares non-optional is present, none it does
 * not declare is, and each value is of the declared type (null only where null is allowed, a
 * string literal one of the declared ones, nested objects, lists and unions the same way). The
 * SDK's `OtherString` ("or any other string", for values newer than the SDK) is not taken as
 * admitting any string: the emulator sends only values its SDK names.
 *
 * The types are named in a project that exists only in memory (a tsconfig and one file beside
 * the repository's root, so `stripe` resolves from its node_modules): nothing is written.
 */
export interface SdkTypes {
  /** The names of the properties `name` declares non-optional, sorted. */
  required(name: string): string[];
  /** What is wrong with `value` as a `name`, one line each (`missing automatic_tax`, …); none when it conforms. */
  problems(value: unknown, name: string): string[];
  close(): void;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

export function readSdkTypes(names: readonly string[]): SdkTypes {
  const folder = `${root}.stripe-sdk-types`;
  const files: Record<string, string> = {
    [`${folder}/tsconfig.json`]: JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: [] },
      files: ['types.ts'],
    }),
    [`${folder}/types.ts`]: `import type Stripe from 'stripe';\n${names.map((name, index) => `export type T${index} = ${name};`).join('\n')}\n`,
  };
  const api = new API({
    cwd: root,
    fs: {
      readFile: (file) => files[file],
      fileExists: (file) => (file in files ? true : undefined),
      directoryExists: (directory) => (directory === folder ? true : undefined),
      getAccessibleEntries: (directory) => (directory === folder ? { files: ['tsconfig.json', 'types.ts'], directories: [] } : undefined),
    },
  });
  try {
    const project = api.updateSnapshot({ openProjects: [`${folder}/tsconfig.json`] }).getProject(`${folder}/tsconfig.json`);
    if (!project) throw new Error('The in-memory project did not load.');
    const diagnostics = project.program.getSemanticDiagnostics(`${folder}/types.ts`);
    if (diagnostics.length > 0) throw new Error(`The SDK's types did not resolve: ${diagnostics.map((d) => d.text).join('; ')}`);
    const source = project.program.getSourceFile(`${folder}/types.ts`)!;
    const byName = new Map<string, Type>();
    source.statements.filter(isTypeAliasDeclaration).forEach((statement, index) => {
      const type = project.checker.getTypeAtLocation(statement.name);
      if (!type || type.isErrorType()) throw new Error(`No type ${names[index]}`);
      byName.set(names[index]!, type);
    });
    const walker = new Walker(project.checker);
    const named = (name: string) => byName.get(name) ?? fail(`${name} was not among the names read`);
    return {
      required: (name) => walker.shape(named(name)).required,
      problems: (value, name) => walker.check(value, named(name), ''),
      close: () => api.close(),
    };
  } catch (error) {
    api.close();
    throw error;
  }
}

function fail(message: string): never {
  throw new Error(message);
}

interface Shape {
  properties: Map<string, TypeSymbol>;
  required: string[];
  /** The value type of a string index signature (`Metadata`), if any. */
  index: Type | undefined;
}

const nullish = TypeFlags.Null | TypeFlags.Undefined;

/** Walks a value and a type together; what it asks the checker is kept, each type asked once. */
class Walker {
  private readonly shapes = new Map<number, Shape>();
  private readonly propertyTypes = new Map<number, Type>();
  private readonly decimals = new Map<number, boolean>();

  constructor(private readonly checker: Checker) {}

  shape(type: Type): Shape {
    let shape = this.shapes.get(type.id);
    if (!shape) {
      const symbols = this.checker.getPropertiesOfType(type);
      const index = this.checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & TypeFlags.String);
      shape = {
        properties: new Map(symbols.map((symbol) => [symbol.name, symbol])),
        required: symbols
          .filter((symbol) => !(symbol.flags & SymbolFlags.Optional))
          .map((symbol) => symbol.name)
          .sort(),
        index: index?.valueType,
      };
      this.shapes.set(type.id, shape);
    }
    return shape;
  }

  check(value: unknown, type: Type, path: string): string[] {
    const members = type.isUnionType() ? [...type.getTypes()] : [type];
    if (members.some((member) => member.flags & (TypeFlags.Any | TypeFlags.Unknown))) return [];
    const expected = () => this.checker.typeToString(type);
    const at = path || '(the object)';
    if (value === null || value === undefined)
      return members.some((member) => member.flags & nullish) ? [] : [`${at}: ${value} where the type is ${expected()}`];
    if (typeof value !== 'object')
      return this.primitive(value as string | number | boolean, members) ? [] : [`${at}: ${JSON.stringify(value)} is not ${expected()}`];
    if (Array.isArray(value)) {
      const list = members.find((member) => this.checker.isArrayType(member));
      if (!list) return [`${at}: a list where the type is ${expected()}`];
      const element = this.checker.getTypeArguments(list as Parameters<Checker['getTypeArguments']>[0])[0]!;
      return value.flatMap((item, index) => this.check(item, element, `${path}[${index}]`));
    }
    const candidates = this.discriminated(
      value as Record<string, unknown>,
      members.filter((member) => this.isObjectLike(member)),
    );
    if (candidates.length === 0) return [`${at}: an object where the type is ${expected()}`];
    // Of several object types left (a union no field tells apart), the value is the one it fits best.
    return candidates
      .map((candidate) => this.object(value as Record<string, unknown>, candidate, path))
      .reduce((best, problems) => (problems.length < best.length ? problems : best));
  }

  private object(value: Record<string, unknown>, type: Type, path: string): string[] {
    const shape = this.shape(type);
    const prefix = path ? `${path}.` : '';
    const problems = shape.required.filter((name) => !(name in value)).map((name) => `missing ${prefix}${name}`);
    for (const [name, field] of Object.entries(value)) {
      const symbol = shape.properties.get(name);
      if (symbol) problems.push(...this.check(field, this.typeOf(symbol), `${prefix}${name}`));
      else if (shape.index) problems.push(...this.check(field, shape.index, `${prefix}${name}`));
      else problems.push(`unexpected ${prefix}${name}`);
    }
    return problems;
  }

  private primitive(value: string | number | boolean, members: readonly Type[]): boolean {
    return members.some((member) => {
      if (typeof value === 'string')
        return (
          (member.flags & (TypeFlags.String | TypeFlags.TemplateLiteral)) !== 0 || this.isDecimal(member) || this.literal(member) === value
        );
      if (typeof value === 'number') return (member.flags & TypeFlags.Number) !== 0 || this.literal(member) === value;
      return (member.flags & TypeFlags.Boolean) !== 0 || this.literal(member) === value;
    });
  }

  /** A literal type's value (`'subscription'`, `3`, `true`), or undefined for any other type. */
  private literal(type: Type): string | number | boolean | undefined {
    return type.flags & (TypeFlags.BooleanLiteral | TypeFlags.StringLiteral | TypeFlags.NumberLiteral)
      ? (type as unknown as { value: string | number | boolean }).value
      : undefined;
  }

  /** The union's members whose literal `object`, `type` and `deleted` fields admit the value's. */
  private discriminated(value: Record<string, unknown>, candidates: Type[]): Type[] {
    if (candidates.length < 2) return candidates;
    return candidates.filter((candidate) =>
      ['object', 'type', 'deleted'].every((key) => {
        const symbol = this.shape(candidate).properties.get(key);
        if (!symbol) return !(key in value);
        const declared = this.typeOf(symbol);
        const literals = (declared.isUnionType() ? [...declared.getTypes()] : [declared]).map((member) => this.literal(member));
        return key in value === false || literals.includes(undefined) || literals.includes(value[key] as string);
      }),
    );
  }

  /**
   * An object type a JSON object can be: an interface, or an intersection of them. Not a list,
   * not the SDK's `Decimal` (a string on the wire), not `OtherString` (`string & {}`, the
   * SDK's "or any other string" in its unions of string literals).
   */
  private isObjectLike(type: Type): boolean {
    if (this.checker.isArrayType(type) || this.isDecimal(type)) return false;
    if (type.isIntersectionType()) return type.getTypes()!.every((member) => member.isObjectType());
    return type.isObjectType();
  }

  /** The SDK's `Decimal`, which travels as a string (`"1200"`). */
  private isDecimal(type: Type): boolean {
    let decimal = this.decimals.get(type.id);
    if (decimal === undefined) this.decimals.set(type.id, (decimal = type.getAliasSymbol()?.name === 'Decimal'));
    return decimal;
  }

  private typeOf(symbol: TypeSymbol): Type {
    let type = this.propertyTypes.get(symbol.id);
    if (!type) {
      type = this.checker.getTypeOfSymbol(symbol) ?? fail(`No type for ${symbol.name}`);
      this.propertyTypes.set(symbol.id, type);
    }
    return type;
  }
}
