-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: "If ALTER TYPE ... ADD VALUE ... is executed inside a transaction block, the new value cannot be used until after the transaction has been committed"); utils/adt/enum.c check_safe_enum_use
-- verified: PG15: ERROR: unsafe use of new value "pending_review" of enum type listing_state (raised by the SET DEFAULT, which coerces the literal); the block rolls back
-- pg-version: 16
-- given: CREATE TYPE listing_state AS ENUM ('draft', 'published', 'archived');
-- given: CREATE TABLE listings (id bigint PRIMARY KEY, title text NOT NULL, state listing_state NOT NULL DEFAULT 'draft');
BEGIN;
ALTER TYPE listing_state ADD VALUE IF NOT EXISTS 'pending_review' AFTER 'draft';
-- new listings now start in moderation
ALTER TABLE listings ALTER COLUMN state SET DEFAULT 'pending_review';
COMMIT;
