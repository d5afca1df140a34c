-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD CHECK ... NOT VALID recurses to inheritance children without scanning; VALIDATE CONSTRAINT recurses with SHARE UPDATE EXCLUSIVE)
-- verified: PG15+16: ADD did no scan; VALIDATE scanned payments, payments_card and payments_sepa (seq_scan +1 each), no rewrite
-- given: CREATE TABLE payments (id bigint PRIMARY KEY, amount_cents bigint);
-- given: CREATE TABLE payments_card (card_last4 char(4)) INHERITS (payments);
-- given: CREATE TABLE payments_sepa (iban text) INHERITS (payments);
ALTER TABLE payments ADD CONSTRAINT payments_amount_positive CHECK (amount_cents > 0) NOT VALID;
ALTER TABLE payments VALIDATE CONSTRAINT payments_amount_positive;
