import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MysqlDatabase } from './mysql-fixture';
import type { PgDatabase } from './postgres-fixture';

/**
 * The writes dataset: `countries` (natural key), `authors` (generated key, unique email,
 * varchar(20) name, date, timestamp with a default) and `books` (foreign key to authors, an
 * enum-typed status with a default, numeric, bigint, int, boolean, timestamptz, date, and a
 * computed column `shout`).
 */
const POSTGRES = `
  CREATE TABLE countries (code varchar(2) PRIMARY KEY, name varchar(50) NOT NULL);
  CREATE TABLE authors (id serial PRIMARY KEY, name varchar(20) NOT NULL, email varchar(100) NOT NULL UNIQUE,
    country_code varchar(2) REFERENCES countries(code), born date, created_at timestamp NOT NULL DEFAULT now());
  CREATE TABLE books (id serial PRIMARY KEY, author_id integer NOT NULL REFERENCES authors(id), title varchar(50) NOT NULL,
    status varchar(20) NOT NULL DEFAULT 'DRAFT', price numeric(10,2), copies bigint, pages integer, in_print boolean,
    published_at timestamptz, written_on date, edited_at timestamp,
    shout varchar(50) GENERATED ALWAYS AS (upper(title)) STORED);
  INSERT INTO countries VALUES ('BR', 'Brasil');
  INSERT INTO authors (name, email, country_code, born, created_at) VALUES ('Machado', 'machado@example.com', 'BR', '1839-06-21', '2024-01-01 10:00:00');
  INSERT INTO books (author_id, title, status) VALUES (1, 'Dom Casmurro', 'PUBLISHED');`;

const SQLITE = `
  CREATE TABLE countries (code VARCHAR(2) PRIMARY KEY NOT NULL, name VARCHAR(50) NOT NULL);
  CREATE TABLE authors (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, email VARCHAR(100) NOT NULL UNIQUE,
    country_code VARCHAR(2) REFERENCES countries(code), born DATE, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE books (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), title VARCHAR(50) NOT NULL,
    status VARCHAR(20) NOT NULL DEFAULT 'DRAFT', price DECIMAL(10,2), copies BIGINT, pages INTEGER, in_print BOOLEAN,
    published_at DATETIME, written_on DATE, edited_at DATETIME,
    shout VARCHAR(50) GENERATED ALWAYS AS (upper(title)) STORED);
  INSERT INTO countries VALUES ('BR', 'Brasil');
  INSERT INTO authors (name, email, country_code, born, created_at) VALUES ('Machado', 'machado@example.com', 'BR', '1839-06-21', '2024-01-01 10:00:00');
  INSERT INTO books (author_id, title, status) VALUES (1, 'Dom Casmurro', 'PUBLISHED');`;

/** Creates the writes dataset in a PostgreSQL database. */
export async function loadLibraryIntoPostgres(db: PgDatabase): Promise<void> {
  await db.exec(POSTGRES);
}

/** Creates the writes dataset in `<dataDir>/datasources/library.db`; returns `sqlite:library.db`. */
export function loadLibraryIntoSqlite(dataDir: string): string {
  mkdirSync(join(dataDir, 'datasources'), { recursive: true });
  const db = new Database(join(dataDir, 'datasources', 'library.db'));
  db.exec(SQLITE);
  db.close();
  return 'sqlite:library.db';
}

/** Creates the writes dataset in a MariaDB/MySQL database (published_at is TIMESTAMP). */
export async function loadLibraryIntoMysql(db: MysqlDatabase): Promise<void> {
  await db.exec(`
    CREATE TABLE countries (code varchar(2) PRIMARY KEY, name varchar(50) NOT NULL);
    CREATE TABLE authors (id int AUTO_INCREMENT PRIMARY KEY, name varchar(20) NOT NULL, email varchar(100) NOT NULL UNIQUE,
      country_code varchar(2) NULL, born date, created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
      FOREIGN KEY (country_code) REFERENCES countries(code));
    CREATE TABLE books (id int AUTO_INCREMENT PRIMARY KEY, author_id int NOT NULL, title varchar(50) NOT NULL,
      status varchar(20) NOT NULL DEFAULT 'DRAFT', price decimal(10,2), copies bigint, pages int, in_print tinyint(1),
      published_at timestamp(3) NULL DEFAULT NULL, written_on date, edited_at datetime(3),
      shout varchar(50) AS (upper(title)) STORED, FOREIGN KEY (author_id) REFERENCES authors(id));
    INSERT INTO countries VALUES ('BR', 'Brasil');
    INSERT INTO authors (name, email, country_code, born, created_at) VALUES ('Machado', 'machado@example.com', 'BR', '1839-06-21', '2024-01-01 10:00:00');
    INSERT INTO books (author_id, title, status) VALUES (1, 'Dom Casmurro', 'PUBLISHED');`);
}
