-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: a non-volatile DEFAULT is evaluated once and stored in the table's metadata, PostgreSQL 11+); https://www.postgresql.org/docs/15/functions-datetime.html: now() is stable and timezone(text, timestamptz) immutable, so the default is not volatile
-- verified: audit_entries relfilenode unchanged, no scan; atthasmissing default; AccessExclusiveLock only, brief
-- given: CREATE TABLE audit_entries (id SERIAL NOT NULL, actor VARCHAR(64) NOT NULL, PRIMARY KEY (id));
ALTER TABLE audit_entries ADD COLUMN recorded_at TIMESTAMP WITHOUT TIME ZONE DEFAULT timezone('utc', now()) NOT NULL;
