-- The company's legal name (Company.legalName), given at sign-up or by an admin through
-- updateCompanyDetails; NULL until someone gives it, since the national register is not
-- consulted from here.
ALTER TABLE companies ADD COLUMN legal_name TEXT;
