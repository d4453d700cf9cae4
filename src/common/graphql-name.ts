/**
 * GraphQL names: `[_A-Za-z][_0-9A-Za-z]*` (GraphQL spec §2.1.9 "Names"). Enum names and values
 * must be such names (CONTRACT.md §3); columns whose names are not are left out of APIs.
 */
export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
