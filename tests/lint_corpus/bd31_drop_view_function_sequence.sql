-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-dropview.html, sql-dropfunction.html, sql-dropsequence.html, sql-droptrigger.html (catalog removals; no table or column of data is dropped)
-- verified: PG15: view, trigger, function, sequence dropped; tickets relfilenode unchanged, no column lost
-- given: CREATE TABLE tickets (id bigserial PRIMARY KEY, status text, updated_at timestamptz);
-- given: CREATE VIEW open_tickets_v AS SELECT id, updated_at FROM tickets WHERE status = 'open';
-- given: CREATE FUNCTION tickets_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated_at := now(); RETURN NEW; END $$;
-- given: CREATE TRIGGER tickets_touch BEFORE UPDATE ON tickets FOR EACH ROW EXECUTE FUNCTION tickets_touch();
-- given: CREATE SEQUENCE ticket_ref_seq;
DROP VIEW IF EXISTS open_tickets_v;
DROP TRIGGER IF EXISTS tickets_touch ON tickets;
DROP FUNCTION IF EXISTS tickets_touch();
DROP SEQUENCE IF EXISTS ticket_ref_seq;
