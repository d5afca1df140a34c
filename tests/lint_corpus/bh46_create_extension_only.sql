-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createextension.html ; installing pgcrypto and citext creates functions/types only, no user table touched
-- verified: PG15: both extensions created; users relfilenode unchanged
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
CREATE EXTENSION IF NOT EXISTS "pgcrypto" WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS citext;
