import { buildSchema, parse, validate } from 'graphql';
import type { BuiltSchema, RootFieldInfo } from '../graphql-gateway/schema-builder';
import { catalogOf, outputJsonSchema } from './api-catalog';
import {
  addRowOperation,
  aggregateRowsOperation,
  deleteRowOperation,
  getRowsOperation,
  ToolInputError,
  updateRowOperation,
} from './tool-operations';

const SDL = `
  type Query {
    getBooks(where: BooksFilter, order: [BooksOrder!], take: Int, skip: Int): [Books!]!
    countBooks(where: BooksFilter): Int!
    aggregateBooks(where: BooksFilter, groupBy: [BooksColumn!], take: Int): [BooksGroup!]!
    getAuthors(take: Int): [Authors!]!
  }
  type Mutation {
    addBooks(title: String!, pages: Int): Books
    updateBooks(id: ID!, title: String, pages: Int): Books
    deleteBooks(id: ID!): Boolean!
  }
  type Books { id: ID! title: String! pages: Int status: Status author: Authors }
  type Authors { id: ID! books(take: Int): [Books!]! }
  enum Status { DRAFT PUBLISHED }
  enum BooksColumn { status }
  type BooksGroup { key: BooksKey count: Int! sum: BooksSums }
  type BooksKey { status: Status }
  type BooksSums { pages: Int }
  input BooksFilter { id: IDFilter title: StringFilter and: [BooksFilter!] }
  input IDFilter { eq: ID in: [ID!] }
  input StringFilter { eq: String contains: String }
  input BooksOrder { id: SortDirection title: SortDirection }
  enum SortDirection { ASC DESC }
`;

/** A built schema whose root fields belong to the API `b1` (books), `getAuthors` to `a1`. */
function built(): BuiltSchema {
  const schema = buildSchema(SDL);
  const rootFields = new Map<string, RootFieldInfo>();
  const info = (apiId: string): RootFieldInfo => ({
    apiId,
    action: 'select',
    public: false,
    datasourceId: 'd1',
  });
  for (const name of [
    'getBooks',
    'countBooks',
    'aggregateBooks',
    'addBooks',
    'updateBooks',
    'deleteBooks',
  ]) {
    rootFields.set(name, info('b1'));
  }
  rootFields.set('getAuthors', info('a1'));
  return { schema, rootFields, permissions: {}, model: [] } as unknown as BuiltSchema;
}

const schemaOf = built();
const catalog = catalogOf(schemaOf, [
  { id: 'b1', name: 'books' },
  { id: 'a1', name: 'authors' },
  // Its name mints getCustomers, which this schema does not hold: not offered.
  { id: 'c1', name: 'customers' },
]);
const books = catalog.get('books')!;

/** The text parses and validates against the schema it was built from. */
function valid(text: string): void {
  expect(validate(schemaOf.schema, parse(text))).toEqual([]);
}

describe('catalogOf', () => {
  it('reads each API from the caller schema: columns, operators, order, navigations, key', () => {
    expect([...catalog.keys()]).toEqual(['books', 'authors']);
    expect(books.columns.map((c) => [c.name, c.type, c.operators, c.orderable])).toEqual([
      ['id', 'ID!', ['eq', 'in'], true],
      ['title', 'String!', ['eq', 'contains'], true],
      ['pages', 'Int', [], false],
      ['status', 'Status', [], false],
    ]);
    expect(books.columns[3].values).toEqual(['DRAFT', 'PUBLISHED']);
    expect(books.navigations).toEqual([
      { name: 'author', type: 'Authors', many: false, fields: { id: { type: 'string' } } },
    ]);
    expect(books.key).toEqual(['id']);
    expect(Object.keys(books.operations)).toEqual([
      'get',
      'count',
      'aggregate',
      'add',
      'update',
      'delete',
    ]);
    // authors offers only get: no key without update or delete.
    expect(catalog.get('authors')!.key).toEqual([]);
  });

  it('gives answers their JSON Schema by wire form', () => {
    expect(books.rowSchema).toMatchObject({
      title: 'books',
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        pages: { type: ['integer', 'null'] },
        status: { type: ['string', 'null'], enum: ['DRAFT', 'PUBLISHED', null] },
      },
    });
    const json = buildSchema('scalar JSON type Query { a: JSON b: [Float!] }');
    const fields = json.getQueryType()!.getFields();
    expect(outputJsonSchema(fields.a.type)).toEqual({});
    expect(outputJsonSchema(fields.b.type)).toEqual({
      type: ['array', 'null'],
      items: { type: 'number' },
    });
  });
});

describe('tool operations', () => {
  it('get_rows: only the arguments sent, one row more than take, the columns asked for', () => {
    const op = getRowsOperation(books, {
      where: { title: { contains: 'a' } },
      take: 2,
      fields: ['title', 'title'],
    });
    expect(op.text).toBe(
      'query McpGetRows($where: BooksFilter, $take: Int) { rows: getBooks(where: $where, take: $take) { title } }',
    );
    expect(op.variables).toEqual({ where: { title: { contains: 'a' } }, take: 3 });
    valid(op.text);
    valid(getRowsOperation(books, { take: 50 }).text);
  });

  it('get_rows include reads navigations, checked against the related row type', () => {
    const op = getRowsOperation(books, { take: 1, fields: ['title'], include: { author: [] } });
    expect(op.text).toContain('{ title author { id } }');
    valid(op.text);
    const authors = catalog.get('authors')!;
    const many = getRowsOperation(authors, { take: 1, include: { books: ['title'] } });
    expect(many.text).toContain('books(take: 20) { title }');
    valid(many.text);
    expect(() => getRowsOperation(books, { take: 1, include: { nope: [] } })).toThrow(
      /include: nope is not a navigation of books/,
    );
    expect(() => getRowsOperation(books, { take: 1, include: { author: ['name'] } })).toThrow(
      /not a column of Authors/,
    );
    expect(books.rowSchema.properties).toMatchObject({
      author: {
        anyOf: [{ type: 'object', properties: { id: { type: 'string' } } }, { type: 'null' }],
      },
    });
  });

  it('aggregate_rows selects key, count and the measures named, all checked against the group type', () => {
    const op = aggregateRowsOperation(books, { groupBy: ['status'], sum: ['pages'] });
    expect(op.text).toContain(
      'groups: aggregateBooks(groupBy: $groupBy) { key { status } count sum { pages } }',
    );
    valid(op.text);
    expect(() => aggregateRowsOperation(books, { groupBy: ['title'] })).toThrow(
      /groupable columns are status/,
    );
    expect(() => aggregateRowsOperation(books, { sum: ['title'] })).toThrow(ToolInputError);
  });

  it('writes take only the arguments of their operation, and the key in key', () => {
    valid(addRowOperation(books, { values: { title: 'T' } }).text);
    const update = updateRowOperation(books, { key: { id: '1' }, set: { pages: 3 } });
    expect(update.variables).toEqual({ pages: 3, id: '1' });
    valid(update.text);
    valid(deleteRowOperation(books, { key: { id: '1' } }).text);
    expect(() => updateRowOperation(books, { key: {}, set: { pages: 1 } })).toThrow(
      /key.id is required/,
    );
    expect(() => updateRowOperation(books, { key: { id: '1' }, set: { id: '2' } })).toThrow(
      /key columns/,
    );
    expect(() => deleteRowOperation(books, { key: { id: '1', title: 'x' } })).toThrow(
      /not a key column/,
    );
  });

  it('never puts a name the schema does not hold into the text (hostile names are refused)', () => {
    const hostile = 'title } mutation { deleteBooks(id: 1) }';
    expect(() => getRowsOperation(books, { take: 1, fields: [hostile] })).toThrow(ToolInputError);
    expect(() => addRowOperation(books, { values: { [hostile]: 1 } })).toThrow(ToolInputError);
    expect(() => updateRowOperation(books, { key: { id: '1' }, set: { [hostile]: 1 } })).toThrow(
      ToolInputError,
    );
    expect(() => aggregateRowsOperation(books, { max: [hostile] })).toThrow(ToolInputError);
  });

  it('refuses an operation the API does not offer the caller', () => {
    expect(() => deleteRowOperation(catalog.get('authors')!, { key: {} })).toThrow(
      /delete_row is not available on authors/,
    );
  });
});
